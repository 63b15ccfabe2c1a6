#!/usr/bin/env bash
# kvp's short runs beside a JVM printing "hello": `kvp list` of bench's 1,024-record pool by its
# live name (`.kvp_pool_1`: flock and fcntl locks first, as on a VM), `kvp set` of one record and
# `kvp append` of a 1,000-line file into a live pool, each with the launcher's flags and the
# start-up archive that suits the JVM. Runs alternate (one of each, then again); a pool written to
# is put back before each run, outside the time taken. Prints each median and its ratio to the
# hello, the median CPU time (user + system, all threads: less swayed by a loaded machine than the
# wall clock), the load average, and the classes each run loads (-Xlog:class+load, with the
# archive).
# Given several jars (e.g. a copy of the jar before a change), each is measured in the same loop.
#
#   usage: [JAVA=path/to/java] bench/small.sh [RUNS] [JAR...]
#     RUNS   runs of each command (default 11)
#     JAR    the kvp jars to measure (default inspect-cli/target/kvp.jar, built if missing)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=11
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
  runs=$1
  shift
fi
cd "$here"
jars=("$@")
((${#jars[@]})) || jars=(inspect-cli/target/kvp.jar)
[[ -f ${jars[0]} && -f bench/target/benchmarks.jar ]] ||
  ./mvnw -q -B -ntp -pl inspect-cli,bench -am package -DskipTests
work=$(mktemp -d "${TMPDIR:-/tmp}/kvp-small.XXXXXX")
trap 'rm -rf "$work"' EXIT
java=${JAVA:-java}
flags=(@bin/lib/jvm/common.options)
archives=()
source bench/lib/archive.sh
for j in "${!jars[@]}"; do
  archives[$j]=$(kvp_archive_option "${jars[$j]}" "$work/kvp$j" "$java" 2> /dev/null)
done

mkdir "$work/hello" "$work/list" "$work/set" "$work/append"
printf 'public class Hello { public static void main(String[] a) { System.out.println("hello"); } }\n' \
  > "$work/hello/Hello.java"
javac -d "$work/hello" "$work/hello/Hello.java"
java -cp bench/target/benchmarks.jar dev.kvprov.bench.PoolGenerator "$work/pool" 1024 2> /dev/null
cp "$work/pool" "$work/list/.kvp_pool_1"
for ((i = 0; i < 1000; i++)); do echo "bench-key-$i=value $i of a batch appended by bench/small.sh"; done \
  > "$work/lines"

source bench/lib/timing.sh

extra=() # JVM options of the class count only
kvp() {
  "$java" @bin/lib/jvm/common.options @bin/lib/jvm/kvp.options "${archives[$jar]}" \
    ${extra[@]+"${extra[@]}"} -jar "${jars[$jar]}" "$@"
}
names=("java Hello" "kvp list, 1,024, live" "kvp set, one record" "kvp append, 1,000 lines")
run() {
  case $1 in
    0) "$java" "${flags[@]}" ${extra[@]+"${extra[@]}"} -cp "$work/hello" Hello ;;
    # exit 1 says some items have problems, as the generated pools have on purpose
    1) kvp list --file "$work/list/.kvp_pool_1" || (($? == 1)) ;;
    2) kvp set --file "$work/set/.kvp_pool_1" Support-Ticket 123456 ;;
    3) kvp append --file "$work/append/.kvp_pool_1" --from "$work/lines" ;;
  esac
}
reset() {
  rm -f "$work/set/.kvp_pool_1" "$work/append/.kvp_pool_1"
  head -c 65536 "$work/pool" > "$work/set/.kvp_pool_1" # 25 records: set replaces or appends
}
# what is timed: the hello once, then each command with each jar
cases=("0 0")
for c in 1 2 3; do
  for j in "${!jars[@]}"; do cases+=("$c $j"); done
done
declare -A times=() cpus=()
read -r _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ cu cs _ < /proc/$$/stat
ticks=$((cu + cs)) # CPU time is in ticks of 10 ms: its medians are coarse
for ((i = 0; i < runs; i++)); do
  for k in "${!cases[@]}"; do
    read -r c jar <<< "${cases[$k]}"
    reset
    start=$(date +%s%N)
    run "$c" > /dev/null 2>&1 || { echo "small.sh: ${names[$c]} failed" >&2; run "$c" >&2; exit 1; }
    times[$k]+="$((($(date +%s%N) - start) / 1000000)) "
    # the shell's children's CPU time so far, in clock ticks: this run's is the difference
    read -r _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ cu cs _ < /proc/$$/stat
    now=$((cu + cs))
    cpus[$k]+="$(((now - ticks) * 1000 / $(getconf CLK_TCK))) "
    ticks=$now
  done
done
printf 'JDK %s, median of %d alternating runs, load %s; jars: %s\n' \
  "$("$java" -XshowSettings:properties -version 2>&1 | awk '/java.version =/ {print $3}')" \
  "$runs" "$(cut -d' ' -f1-3 /proc/loadavg)" "${jars[*]}"
hello=$(tr ' ' '\n' <<< "${times[0]}" | grep . | median)
for k in "${!cases[@]}"; do
  read -r c jar <<< "${cases[$k]}"
  reset
  m=$(tr ' ' '\n' <<< "${times[$k]}" | grep . | median)
  cpu=$(tr ' ' '\n' <<< "${cpus[$k]}" | grep . | median)
  extra=(-Xlog:class+load:stdout)
  classes=$(run "$c" 2> /dev/null | grep -c 'class,load' || true)
  extra=()
  label=${names[$c]}
  ((c == 0 || ${#jars[@]} == 1)) || label+=" [jar $((jar + 1))]"
  awk -v n="$label" -v m="$m" -v h="$hello" -v k="$classes" -v cpu="$cpu" \
    'BEGIN { printf "  %-36s %7.1f ms  %5.2f x hello  %6.0f ms CPU  %5d classes\n", n, m, m / (h > 0 ? h : 1), cpu, k }'
done
