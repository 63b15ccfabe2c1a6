#!/usr/bin/env bash
# kvp side by side with the floor and, when given, the Rust peer: a JVM printing "hello", `cat`,
# `kvp list` and `kvp dump` (with the launcher's flags and start-up archive) and PEER, on the same
# 1,024- and 100,000-record pools (kvprov, cloud-init and azure-init records, from bench's
# PoolGenerator). kvp reads a pool by two names: as a copy (`pool-N.kvp`: plain reads, no lock)
# and as a live pool (`.kvp_pool_1`: shared flock and fcntl locks first, as on a VM, which loads
# JNA); `kvp dump` and PEER read the live name. Runs alternate between the commands (one of each,
# then again), so that the machine's moods fall on all of them alike; prints each command's median
# and its ratio to the hello and to PEER.
#
#   usage: [JAVA=path/to/java] bench/compare.sh [RUNS] [PEER...]
#     JAVA   the JVM to run kvp and the hello with (default: java on the PATH); kvp runs with the
#            launcher's flags and the start-up archive that suits it (AOT cache on JDK 25+)
#     RUNS   runs of each command on each pool (default 11)
#     PEER   a command that reads the live pool: a word %d is replaced by the pool's directory, %f
#            by its file; with neither, the file is appended. The built azure-init tool reads
#            DIR/.kvp_pool_1 (its "guest" pool):
#            bench/compare.sh 11 ~/azure-init/target/release/libazureinit-kvp --dir %d dump
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
  # the same bytes under both names
  mkdir "$work/$records"
  pool=$work/$records/pool-$records.kvp
  live=$work/$records/.kvp_pool_1
  java -cp bench/target/benchmarks.jar dev.kvprov.bench.PoolGenerator "$pool" "$records" 2> /dev/null
  cp "$pool" "$live"
  kvp_run="${java[*]} ${kvp_flags[*]} -jar $kvp"
  names=("java Hello" "cat" "kvp list, copy (no lock)" "kvp list, live (locked)" \
    "kvp dump, live (locked)")
  commands=("${java[*]} -cp $work/hello Hello" "cat $live" "$kvp_run list --file $pool" \
    "$kvp_run list --file $live" "$kvp_run dump --file $live")
  peer_at=
  if ((${#peer[@]})); then
    words=() placed=
    for w in "${peer[@]}"; do
      case $w in
        %d) words+=("$work/$records") placed=1 ;;
        %f) words+=("$live") placed=1 ;;
        *) words+=("$w") ;;
      esac
    done
    [[ -n $placed ]] || words+=("$live")
    peer_at=${#commands[@]}
    names+=("peer: ${peer[0]##*/} ${peer[*]:1}")
    commands+=("${words[*]}")
  fi
  declare -A times=()
  for ((i = 0; i < runs; i++)); do
    for c in "${!commands[@]}"; do
      # shellcheck disable=SC2086 # the commands are words on purpose
      times[$c]+="$(time_ms ${commands[$c]}) "
    done
  done
  declare -A medians=()
  for c in "${!commands[@]}"; do
    medians[$c]=$(tr ' ' '\n' <<< "${times[$c]}" | grep . | median)
  done
  printf '\n%s records (%s bytes), median of %d alternating runs, load %s\n' \
    "$records" "$(stat -c %s "$pool")" "$runs" "$(cut -d' ' -f1-3 /proc/loadavg)"
  for c in "${!commands[@]}"; do
    awk -v n="${names[$c]}" -v m="${medians[$c]}" -v h="${medians[0]}" \
      -v p="${peer_at:+${medians[$peer_at]}}" \
      'BEGIN {
        printf "  %-36s %8.1f ms  %6.2f x hello", n, m, m / (h > 0 ? h : 1)
        if (p != "") printf "  %6.2f x peer", m / (p > 0 ? p : 1)
        printf "\n"
      }'
  done
  for c in 2 3; do
    # shellcheck disable=SC2086 # the command is words on purpose
    rss=$(/usr/bin/time -f %M ${commands[$c]} 2>&1 > /dev/null | tail -1)
    printf '  %-36s %8d MB peak RSS\n' "${names[$c]}" $((rss / 1024))
  done
  unset times medians
done
