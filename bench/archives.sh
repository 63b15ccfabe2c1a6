#!/usr/bin/env bash
# The start-up archives side by side (docs/performance.md, "Start-up: the class-data-sharing
# archive"; static against dynamic in docs/performance-log.md): kvprov provision --root against
# the simulator and kvp list on a 1,024-record pool, whole processes, with no
# archive, a static CDS archive (what the package built before), a dynamic one (what bin/cds-archive
# builds now) and, given a JDK 25 or later, that JDK without and with its AOT cache
# (bin/aot-cache); then each archive's size. Runs alternate between the commands (one of each, then
# again), each provisioning on a fresh copy of the image root; prints each command's median and
# fastest run. Needs root (provisioning runs the real useradd on a throw-away root).
#   usage: bench/archives.sh [RUNS] [JAVA_25]      (default 15 runs per command)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-15} java25=${2:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/kvprov-archives.XXXXXX")
trap 'kill "$sim" 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$here"
./mvnw -q -B -ntp -pl agent,inspect-cli,bench -am package -DskipTests
source bench/lib/timing.sh
# the options every JVM of ours starts with (bin/lib/jvm), as the launchers do
flags="@bin/lib/jvm/common.options"
for tool in kvprov:agent/target/kvprov.jar:dev.kvprov.agent.CdsTraining \
  kvp:inspect-cli/target/kvp.jar:dev.kvprov.inspect.CdsTraining; do
  IFS=: read -r name jar main <<< "$tool"
  # static, as the package built it before: the classes a training run loads, listed, then dumped
  # with the JDK's own into one archive
  java -Xshare:off -XX:DumpLoadedClassList="$work/$name.classes" -cp "$jar" "$main"
  java -Xshare:dump -XX:SharedClassListFile="$work/$name.classes" \
    -XX:SharedArchiveFile="$work/$name-static.jsa" -cp "$jar" > /dev/null
  bin/cds-archive "$jar" "$main" "$work/$name-dynamic.jsa"
  if [[ -n "$java25" ]]; then bin/aot-cache "$jar" "$main" "$work/$name.aot" "$java25"; fi
done

source bench/lib/platform.sh
# shellcheck disable=SC2086 # the flags are words on purpose
platform agent/target/kvprov.jar java $flags
java -cp bench/target/benchmarks.jar dev.kvprov.bench.PoolGenerator "$work/pool-1024.kvp" 1024 2> /dev/null

names=() commands=()
for what in provision list; do
  if [[ $what == provision ]]; then
    name=kvprov
    run="-jar agent/target/kvprov.jar provision --root $work/root --config $work/sim.toml --media-dir $work/demo/media"
  else
    name=kvp
    run="-jar inspect-cli/target/kvp.jar list --file $work/pool-1024.kvp"
  fi
  names+=("$what, no archive" "$what, static CDS" "$what, dynamic CDS")
  commands+=("java $flags $run" "java $flags -XX:SharedArchiveFile=$work/$name-static.jsa $run"
    "java $flags -XX:SharedArchiveFile=$work/$name-dynamic.jsa $run")
  if [[ -n "$java25" ]]; then
    names+=("$what, JDK 25, no archive" "$what, JDK 25, AOT cache")
    commands+=("$java25 $flags $run" "$java25 $flags -XX:AOTCache=$work/$name.aot $run")
  fi
done
declare -A times=()
for ((i = 0; i < runs; i++)); do
  for c in "${!commands[@]}"; do
    rm -rf "$work/root" && cp -a "$work/template" "$work/root"
    # shellcheck disable=SC2086 # the commands are words on purpose
    times[$c]+="$(time_ms ${commands[$c]}) "
  done
done
printf '\n%d alternating runs each (java: %s)\n' "$runs" "$(readlink -f "$(command -v java)")"
for c in "${!commands[@]}"; do
  printf '  %-32s median %6.1f ms   fastest %5d ms\n' "${names[$c]}" \
    "$(tr ' ' '\n' <<< "${times[$c]}" | grep . | median)" \
    "$(tr ' ' '\n' <<< "${times[$c]}" | grep . | sort -n | head -1)"
done
echo
for archive in "$work"/*.jsa "$work"/*.aot; do
  [[ -f $archive ]] && stat -c '%s %n' "$archive"
done | awk '{sub(".*/", "", $2); printf "  %-20s %5.1f MB\n", $2, $1 / 1048576}'
