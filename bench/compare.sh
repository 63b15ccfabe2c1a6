#!/usr/bin/env bash
# kvp side by side with the floor and, when given, the Rust peer (azure-init's `libazureinit-kvp`
# CLI): a JVM printing "hello", `cat`, kvp's commands (started as the Debian package's launcher
# starts them: its JVM options, its start-up archive, JNA's native part) and the peer's, on the same 1,024- and 100,000-record pools (kvprov, cloud-init and
# azure-init records, from bench's PoolGenerator).
#
# kvp reads a pool by two names: as a copy (`pool-N.kvp`: plain reads, no lock) and as a live pool
# (`.kvp_pool_1`: shared flock and fcntl locks first, as on a VM, which loads JNA). Every other
# row takes the live name, the path a VM takes. Rows:
#   1,024 records   list (copy, live), dump, `set` of one record, `append` of 1,000 lines
#   100,000         list (copy, live), dump, tree, timeline; peak RSS of each
# and the peer's dump, `write` (its set) and `append-multiple`. A write row starts each run from
# the same pool (restored before the timing), so that the pool does not grow from run to run.
#
# Runs alternate between the commands (one of each, then again), so that the machine's moods fall
# on all of them alike; prints each command's median, its ratio to the hello and to the peer's
# command of the same kind.
#
#   usage: [JAVA=path/to/java] [KVP_CHECKOUTS="NAME=DIR..."] bench/compare.sh [RUNS] [PEER]
#     JAVA            the JVM to run kvp and the hello with (default: java on the PATH); kvp runs
#                     with the launcher's flags and the start-up archive that suits it
#     KVP_CHECKOUTS   kvp from other checkouts too, each already built, with its own jar, JVM
#                     options and archive, alternating with this one: a before and an after
#                     (default: this checkout alone, built here)
#     RUNS            runs of each command on each pool (default 11)
#     PEER            the built `libazureinit-kvp` CLI; it reads DIR/.kvp_pool_1 (its "guest" pool)
#   e.g. KVP_CHECKOUTS="before=$HOME/kvprov-old" \
#          bench/compare.sh 11 ~/azure-init/target/release/libazureinit-kvp
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=11
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
  runs=$1
  shift
fi
peer=${1:-}
if [[ -n $peer && ! -x $peer ]]; then
  echo "compare.sh: the peer $peer is not an executable file" >&2
  exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/kvprov-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT
invoked=$PWD
cd "$here"
./mvnw -q -B -ntp -pl inspect-cli,bench -am package -DskipTests
javacmd=${JAVA:-java}
source bench/lib/archive.sh

# Each kvp: a name, then the words that start it as its launcher does (its own options, its
# start-up archive).
read -r -a checkouts <<< "${KVP_CHECKOUTS:-}"
checkouts+=("$([[ -n ${KVP_CHECKOUTS:-} ]] && echo now || echo kvp)=$here")
kvp_names=() kvp_runs=()
for entry in "${checkouts[@]}"; do
  name=${entry%%=*} dir=$(cd "$invoked" && cd "${entry#*=}" && pwd)
  jar=$dir/inspect-cli/target/kvp.jar
  if [[ ! -f $jar ]]; then
    echo "compare.sh: no $jar; build that checkout first" >&2
    exit 2
  fi
  flags=("$javacmd" @"$dir/bin/lib/jvm/common.options" @"$dir/bin/lib/jvm/kvp.options")
  # JNA's native part as the package gives it (its launcher's jna.* options): the jar's own,
  # never unpacked at each run; a checkout from before the package had it starts as it did then
  if grep -q jna_native "$dir/bin/lib/launch.sh"; then
    native=com/sun/jna/linux-x86-64
    mkdir -p "$work/$name-jna"
    (cd "$work/$name-jna" && jar xf "$jar" "$native/libjnidispatch.so")
    flags+=(-Djna.boot.library.path="$work/$name-jna/$native" -Djna.nounpack=true)
  fi
  flags+=("$(kvp_archive_option "$jar" "$work/$name" "$javacmd" "$dir/bin/start-up-archive")")
  kvp_names+=("$name")
  kvp_runs+=("${flags[*]} -jar $jar")
done

mkdir "$work/hello"
printf 'public class Hello { public static void main(String[] a) { System.out.println("hello"); } }\n' \
  > "$work/hello/Hello.java"
javac -d "$work/hello" "$work/hello/Hello.java"
hello="$javacmd @bin/lib/jvm/common.options -cp $work/hello Hello"

source bench/lib/timing.sh

# A thousand lines to append, each a record of the size kvprov's own are.
for ((i = 0; i < 1000; i++)); do
  printf 'bench.append.%04d=%s\n' "$i" "$(printf 'v%.0s' {1..200})"
done > "$work/lines.txt"

for records in 1024 100000; do
  # the same bytes under both names, and a third copy that the write rows change
  mkdir -p "$work/$records" "$work/$records-write"
  pool=$work/$records/pool-$records.kvp
  live=$work/$records/.kvp_pool_1
  java -cp bench/target/benchmarks.jar dev.kvprov.bench.PoolGenerator "$pool" "$records" 2> /dev/null
  cp "$pool" "$live"
  written=$work/$records-write/.kvp_pool_1
  # rows: name, command, what restores the pool before it ("" for none), the peer row it is
  # measured against ("" for none), whether its peak RSS is measured
  names=() commands=() restore=() against=() rss=()
  row() {
    names+=("$1") commands+=("$2") restore+=("$3") against+=("$4") rss+=("$5")
  }
  row "java Hello" "$hello" "" "" ""
  row "cat" "cat $live" "" "" ""
  peer_dump= peer_write= peer_append=
  if [[ -n $peer ]]; then
    peer_dump=${#names[@]}
    row "peer: dump" "$peer --dir $work/$records dump" "" "" ""
    if ((records == 1024)); then
      peer_write=${#names[@]}
      row "peer: write (set one record)" "$peer --dir $work/$records-write write bench.set x" \
        "cp $pool $written" "" ""
      peer_append=${#names[@]}
      row "peer: append-multiple, 1,000 lines" \
        "$peer --dir $work/$records-write append-multiple --file $work/lines.txt" \
        "cp $pool $written" "" ""
    fi
  fi
  for k in "${!kvp_names[@]}"; do
    n=${kvp_names[k]} run=${kvp_runs[k]}
    big=$([[ $records == 100000 ]] && echo y || true)
    row "$n list, copy (no lock)" "$run list --file $pool" "" "$peer_dump" "$big"
    row "$n list, live (locked)" "$run list --file $live" "" "$peer_dump" "$big"
    row "$n dump, live (locked)" "$run dump --file $live" "" "$peer_dump" "$big"
    if ((records == 1024)); then
      row "$n set one record, live" "$run set --file $written bench.set x" "cp $pool $written" \
        "$peer_write" ""
      row "$n append 1,000 lines, live" "$run append --file $written --from $work/lines.txt" \
        "cp $pool $written" "$peer_append" ""
    else
      row "$n tree, live" "$run tree --file $live" "" "$peer_dump" y
      row "$n timeline, live" "$run timeline --file $live" "" "$peer_dump" y
    fi
  done
  declare -A times=()
  for ((i = 0; i < runs; i++)); do
    for c in "${!commands[@]}"; do
      # shellcheck disable=SC2086 # the commands are words on purpose
      [[ -z ${restore[c]} ]] || ${restore[c]}
      # shellcheck disable=SC2086
      times[$c]+="$(time_ms ${commands[$c]}) "
    done
  done
  declare -A medians=()
  for c in "${!commands[@]}"; do
    medians[$c]=$(tr ' ' '\n' <<< "${times[$c]}" | grep . | median)
  done
  printf '\n%s records (%s bytes), %s, median of %d alternating runs, load %s\n' \
    "$records" "$(stat -c %s "$pool")" "$("$javacmd" -version 2>&1 | head -1)" "$runs" \
    "$(cut -d' ' -f1-3 /proc/loadavg)"
  for c in "${!commands[@]}"; do
    p=${against[c]}
    awk -v n="${names[$c]}" -v m="${medians[$c]}" -v h="${medians[0]}" \
      -v p="${p:+${medians[$p]}}" \
      'BEGIN {
        printf "  %-36s %8.1f ms  %6.2f x hello", n, m, m / (h > 0 ? h : 1)
        if (p != "") printf "  %6.2f x peer", m / (p > 0 ? p : 1)
        printf "\n"
      }'
  done
  for c in "${!commands[@]}"; do
    [[ -n ${rss[c]} ]] || continue
    # shellcheck disable=SC2086 # the command is words on purpose
    kb=$(/usr/bin/time -f %M ${commands[$c]} 2>&1 > /dev/null | tail -1)
    printf '  %-36s %8d MB peak RSS\n' "${names[$c]}" $((kb / 1024))
  done
  unset times medians
done
