#!/usr/bin/env bash
# kvp side by side with the floor and, when given, the Rust peer: a JVM printing "hello", `cat`,
# `kvp list` (with its start-up archive) and PEER, on the same 1,024- and 100,000-record pools
# (kvprov, cloud-init and azure-init records, from bench's PoolGenerator). Runs alternate between
# the commands (one of each, then again), so that the machine's moods fall on all of them alike;
# prints each command's median and its ratio to kvp's.
#
#   usage: [JAVA=path/to/java] bench/compare.sh [RUNS] [PEER...]
#     JAVA   the JVM to run kvp and the hello with (default: java on the PATH); kvp runs with the
#            launcher's flags and the start-up archive that suits it (AOT cache on JDK 25+)
#     RUNS   runs of each command on each pool (default 11)
#     PEER   a command that reads a pool file named after it, e.g. the built azure-init tool:
#            bench/compare.sh 11 ~/azure-init/target/release/libazureinit-kvp dump
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=11
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
  runs=$1
  shift
fi
peer=("$@")
work=$(mktemp -d "${TMPDIR:-/tmp}/kvprov-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$here"
./mvnw -q -B -ntp -pl inspect-cli,bench -am package -DskipTests
kvp=inspect-cli/target/kvp.jar
java=("${JAVA:-java}" @bin/lib/jvm/common.options)
# as bin/kvp starts it: its own options (bin/lib/jvm), its start-up archive
kvp_flags=(@bin/lib/jvm/kvp.options)
case $(bin/start-up-archive "$kvp" dev.kvprov.inspect.CdsTraining "$work/kvp" "${JAVA:-java}") in
  aot) kvp_flags+=(-XX:AOTCache="$work/kvp.aot") ;;
  cds) kvp_flags+=(-XX:SharedArchiveFile="$work/kvp.jsa") ;;
esac

mkdir "$work/hello"
printf 'public class Hello { public static void main(String[] a) { System.out.println("hello"); } }\n' \
  > "$work/hello/Hello.java"
javac -d "$work/hello" "$work/hello/Hello.java"

source bench/lib/timing.sh

for records in 1024 100000; do
  pool=$work/pool-$records.kvp
  java -cp bench/target/benchmarks.jar dev.kvprov.bench.PoolGenerator "$pool" "$records" 2> /dev/null
  names=("java Hello" "cat" "kvp list")
  commands=("${java[*]} -cp $work/hello Hello" "cat $pool" \
    "${java[*]} ${kvp_flags[*]} -jar $kvp list --file $pool")
  if ((${#peer[@]})); then
    names+=("peer: ${peer[*]##*/}")
    commands+=("${peer[*]} $pool")
  fi
  declare -A times=()
  for ((i = 0; i < runs; i++)); do
    for c in "${!commands[@]}"; do
      # shellcheck disable=SC2086 # the commands are words on purpose
      times[$c]+="$(time_ms ${commands[$c]}) "
    done
  done
  kvp_median=$(tr ' ' '\n' <<< "${times[2]}" | grep . | median)
  printf '\n%s records (%s bytes), median of %d alternating runs\n' \
    "$records" "$(stat -c %s "$pool")" "$runs"
  for c in "${!commands[@]}"; do
    m=$(tr ' ' '\n' <<< "${times[$c]}" | grep . | median)
    awk -v n="${names[$c]}" -v m="$m" -v k="$kvp_median" \
      'BEGIN {printf "  %-28s %8.1f ms   kvp / this: %5.2f\n", n, m, k / (m > 0 ? m : 1)}'
  done
  # shellcheck disable=SC2086 # the command is words on purpose
  rss=$(/usr/bin/time -f %M ${commands[2]} 2>&1 > /dev/null | tail -1)
  printf '  kvp list peak RSS            %8d MB\n' $((rss / 1024))
  unset times
done
