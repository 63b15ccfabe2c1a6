#!/usr/bin/env bash
# kvp on a big live pool, side by side: `kvp list`, `dump`, `tree` and `timeline` on a pool of
# RECORDS records from bench's generator named .kvp_pool_1 (so kvp takes its locks, as on a VM),
# with the launcher's flags and start-up archive, against the Rust peer's `dump` of the same pool
# and, when given, another kvp.jar (a build from before a change). Runs alternate between all the
# commands (one of each, then again) so that a shared machine's moods fall on all alike; prints
# each one's median wall time, its ratio to the peer's dump and to this jar's `list`, and its
# largest peak RSS (/usr/bin/time %M).
#
#   usage: [JAVA=path/to/java] bench/big-pool.sh [RUNS] [RECORDS] [PEER] [OTHER_JAR]
#     RUNS       runs of each command (default 7)
#     RECORDS    the pool's size (default 100000)
#     PEER       azure-init's libazureinit-kvp binary (run as PEER --dir DIR dump); "-" for none
#     OTHER_JAR  a kvp.jar to measure as well, e.g. one saved before a change
#   e.g. JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java bench/big-pool.sh 7 100000 \
#          /work/peer/build/libazureinit-kvp/target/release/libazureinit-kvp /tmp/kvp-before.jar
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-7}
records=${2:-100000}
peer=${3:--}
other=${4:-}
java=${JAVA:-java}
work=$(mktemp -d "${TMPDIR:-/tmp}/big-pool.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$here"
./mvnw -q -B -ntp -pl inspect-cli,bench -am package -DskipTests
source bench/lib/timing.sh
jar=$work/kvp.jar
cp inspect-cli/target/kvp.jar "$jar"
flags=(@bin/lib/jvm/common.options @bin/lib/jvm/kvp.options)
source bench/lib/archive.sh
flags+=("$(kvp_archive_option "$jar" "$work/kvp" "$java" 2> /dev/null)")
other_flags=(@bin/lib/jvm/common.options @bin/lib/jvm/kvp.options)
if [[ -n $other ]]; then
  # the other jar gets its own archive, so that neither side starts colder
  cp "$other" "$work/other.jar"
  other=$work/other.jar
  other_flags+=("$(kvp_archive_option "$other" "$work/other" "$java" 2> /dev/null)")
fi
mkdir "$work/pool"
pool=$work/pool/.kvp_pool_1
java -cp bench/target/benchmarks.jar dev.kvprov.bench.PoolGenerator "$pool" "$records" 2> /dev/null
names=()
commands=()
if [[ $peer != - ]]; then
  names+=("peer dump")
  commands+=("$peer --dir $work/pool dump")
fi
for command in list dump tree timeline; do
  names+=("kvp $command")
  commands+=("$java ${flags[*]} -jar $jar $command --file $pool")
  if [[ -n $other ]]; then
    names+=("kvp $command (other jar)")
    commands+=("$java ${other_flags[*]} -jar $other $command --file $pool")
  fi
done
# one run of each, RUNS times; the exit status is not the measure (1: the pool has problems)
for ((r = 0; r < runs; r++)); do
  for i in "${!commands[@]}"; do
    start=$(date +%s%N)
    /usr/bin/time -f %M -o "$work/rss" ${commands[$i]} > /dev/null 2> /dev/null || true
    echo $((($(date +%s%N) - start) / 1000000)) >> "$work/ms.$i"
    tail -1 "$work/rss" >> "$work/kb.$i"
  done
done
echo "$records records, live pool name (locked), $runs runs alternating; $($java -version 2>&1 | head -1)"
echo "load at the end: $(cat /proc/loadavg)"
peer_ms=
list_ms=
printf '  %-26s %9s %10s %9s %8s\n' command "median ms" "x peer" "x list" "peak MB"
for i in "${!commands[@]}"; do
  ms=$(median < "$work/ms.$i")
  mb=$(($(sort -n "$work/kb.$i" | tail -1) / 1024))
  [[ ${names[$i]} == "peer dump" ]] && peer_ms=$ms
  [[ ${names[$i]} == "kvp list" ]] && list_ms=$ms
  printf '  %-26s %9s %10s %9s %8s\n' "${names[$i]}" "$ms" \
    "$([[ -n $peer_ms ]] && awk -v a="$ms" -v b="$peer_ms" 'BEGIN {printf "%.2f", a / b}' || echo -)" \
    "$([[ -n $list_ms ]] && awk -v a="$ms" -v b="$list_ms" 'BEGIN {printf "%.2f", a / b}' || echo -)" \
    "$mb"
done
