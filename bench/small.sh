#!/usr/bin/env bash
# kvp's short runs beside a JVM printing "hello": `kvp list` of bench's 1,024-record pool by its
# live name (`.kvp_pool_1`: flock and fcntl locks first, as on a VM), `kvp set` of one record and
# `kvp append` of a 1,000-line file into a live pool, each with the launcher's flags and the
# start-up archive that suits the JVM. Runs alternate (one of each, then again); a pool written to
# is put back before each run, outside the time taken. Prints each median and its ratio to the
# hello, the load average, and the classes each run loads (-Xlog:class+load, with the archive).
#
#   usage: [JAVA=path/to/java] bench/small.sh [RUNS] [JAR]
#     RUNS   runs of each command (default 11)
#     JAR    the kvp jar to measure (default inspect-cli/target/kvp.jar, built if missing)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-11}
cd "$here"
jar=${2:-inspect-cli/target/kvp.jar}
[[ -f $jar && -f bench/target/benchmarks.jar ]] ||
  ./mvnw -q -B -ntp -pl inspect-cli,bench -am package -DskipTests
work=$(mktemp -d "${TMPDIR:-/tmp}/kvp-small.XXXXXX")
trap 'rm -rf "$work"' EXIT
java=${JAVA:-java}
flags=(@bin/lib/jvm/common.options)
kvp_flags=(@bin/lib/jvm/common.options @bin/lib/jvm/kvp.options)
case $(bin/start-up-archive "$jar" dev.kvprov.inspect.CdsTraining "$work/kvp" "$java" 2> /dev/null) in
  aot) kvp_flags+=(-XX:AOTCache="$work/kvp.aot") ;;
  cds) kvp_flags+=(-XX:SharedArchiveFile="$work/kvp.jsa") ;;
esac

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
names=("java Hello" "kvp list, 1,024, live" "kvp set, one record" "kvp append, 1,000 lines")
kvp() { "$java" "${kvp_flags[@]}" ${extra[@]+"${extra[@]}"} -jar "$jar" "$@"; }
run() {
  case $1 in
    0) "$java" "${flags[@]}" -cp "$work/hello" Hello ;;
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
declare -A times=()
for ((i = 0; i < runs; i++)); do
  for c in 0 1 2 3; do
    reset
    start=$(date +%s%N)
    run $c > /dev/null 2>&1 || { echo "small.sh: ${names[$c]} failed" >&2; run $c >&2; exit 1; }
    times[$c]+="$((($(date +%s%N) - start) / 1000000)) "
  done
done
printf 'JDK %s, %s, median of %d alternating runs, load %s\n' \
  "$("$java" -XshowSettings:properties -version 2>&1 | awk '/java.version =/ {print $3}')" \
  "$jar" "$runs" "$(cut -d' ' -f1-3 /proc/loadavg)"
hello=$(tr ' ' '\n' <<< "${times[0]}" | grep . | median)
for c in 0 1 2 3; do
  reset
  m=$(tr ' ' '\n' <<< "${times[$c]}" | grep . | median)
  if ((c == 0)); then
    classes=$("$java" "${flags[@]}" -Xlog:class+load:stdout -cp "$work/hello" Hello | grep -c 'class,load')
  else
    extra=(-Xlog:class+load:stdout)
    classes=$(run $c 2> /dev/null | grep -c 'class,load' || true)
    extra=()
  fi
  awk -v n="${names[$c]}" -v m="$m" -v h="$hello" -v k="$classes" \
    'BEGIN { printf "  %-28s %7.1f ms  %5.2f x hello  %5d classes\n", n, m, m / (h > 0 ? h : 1), k }'
done
