#!/usr/bin/env bash
# kvp fleet on many host exports (docs/performance.md, "kvp fleet"): VMS exports of RECORDS
# records each, written once by bench's FleetExports (a kvprov boot each: real step names, IMDS
# retried, one VM in 20 failing at IMDS, one in 25 at the user, one in 50 never finishing; about
# 100 KB an export), then one whole run of bin/kvp fleet under /usr/bin/time -v: its wall clock,
# CPU and peak RSS, and the fleet's summary.
#   usage: bench/fleet.sh [VMS [RECORDS [DIR]]]   (default 10000 200 $TMPDIR/kvprov-fleet-VMS)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
vms=${1:-10000} records=${2:-200}
dir=${3:-${TMPDIR:-/tmp}/kvprov-fleet-$vms}
cd "$here"
./mvnw -q -B -ntp -pl bench,inspect-cli -am package -DskipTests
if [[ ! -d $dir ]]; then
  java -cp bench/target/benchmarks.jar dev.kvprov.bench.FleetExports generate "$dir" "$vms" "$records"
fi
echo "$dir: $(find "$dir" -maxdepth 1 -type f | wc -l) exports, $(du -sh "$dir" | cut -f1)"
cat "$dir"/* > /dev/null # read once, so that the run measures kvp and not the disk
status=0
/usr/bin/time -v bin/kvp fleet "$dir" > "$dir.out" 2> "$dir.time" || status=$?
echo "bin/kvp fleet $dir: exit $status"
grep -E "Elapsed \(wall|Maximum resident|User time|System time" "$dir.time"
sed -n '/^[0-9]* VMs:/,$p' "$dir.out"
