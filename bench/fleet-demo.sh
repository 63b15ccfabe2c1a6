#!/usr/bin/env bash
# A fleet made by the demo, for kvp fleet by hand (docs/inspect.md): VMS first boots against the
# simulator, the scenarios taken in turn, each pool written as the host-side export the
# PowerShell in docs/inspect.md makes (one CIM-XML item a line), into OUT/vm-NN-SCENARIO.xml.
# A demo boot takes a few seconds; the boots run one after another.
#   usage: bench/fleet-demo.sh [VMS [OUT]]      (default 50 VMs into /tmp/kvprov-fleet)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
vms=${1:-50} out=${2:-/tmp/kvprov-fleet}
scenarios=(ok flaky-imds ok slow-imds wireserver-flaky ok retry-after imds-down-no-media ok
  portal-keys flaky-imds wireserver-down ok imds-malformed certificate-key)
work=$(mktemp -d "${TMPDIR:-/tmp}/kvprov-fleet-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$here"
./mvnw -q -B -ntp -pl agent,inspect-cli,bench -am package -DskipTests
mkdir -p "$out"
for ((i = 1; i <= vms; i++)); do
  scenario=${scenarios[$(((i - 1) % ${#scenarios[@]}))]}
  name=$(printf 'vm-%02d-%s' "$i" "$scenario")
  start=$(date +%s.%N)
  status=0
  bin/kvprov demo --scenario "$scenario" --dir "$work/$name" > "$work/$name.log" 2>&1 || status=$?
  java -cp bench/target/benchmarks.jar dev.kvprov.bench.FleetExports from-pool \
    "$work/$name/root/var/lib/hyperv/.kvp_pool_1" "$out/$name.xml"
  printf '%s: demo exit %d, %.1f s\n' "$name" "$status" "$(echo "$(date +%s.%N) - $start" | bc)"
  rm -rf "${work:?}/$name"
done
echo "$out: $vms exports; try: bin/kvp fleet $out"
