#!/usr/bin/env bash
# What the pool lock's native binding costs a fresh JVM, one kvp jar against another: bench's
# LockStart makes a pool store, then times the binding (JNA's, or java.lang.foreign's from a
# multi-release jar on JDK 22+) and one locked append, in-process, so that the JVM's own start and
# exit do not drown the difference. Each jar gets its own start-up archive, trained on the same run
# (JDK 25: AOT cache; JDK 17: dynamic CDS); JNA's native part is handed over as the package does.
# Runs alternate (one per jar, then again). Prints the medians and the load average.
#
#   usage: [JAVA=path/to/java] bench/lock-start.sh [RUNS] KVP_JAR...
#     RUNS     runs per jar (default 15)
#     KVP_JAR  kvp module jars (kvp/target/kvp-*.jar of each checkout to compare)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=15
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
  runs=$1
  shift
fi
(($#)) || { sed -n '2,11p' "$0" >&2; exit 2; }
jars=()
for j in "$@"; do jars+=("$(readlink -f "$j")"); done
cd "$here"
[[ -f bench/target/benchmarks.jar ]] || ./mvnw -q -B -ntp -pl bench -am package -DskipTests
java=${JAVA:-java}
work=$(mktemp -d "${TMPDIR:-/tmp}/lock-start.XXXXXX")
trap 'rm -rf "$work"' EXIT
unzip -q -j bench/target/benchmarks.jar com/sun/jna/linux-x86-64/libjnidispatch.so -d "$work/native"
version=$("$java" -XshowSettings:properties -version 2>&1 | awk '/java.specification.version/ {print $3}')
options=(@bin/lib/jvm/common.options --enable-native-access=ALL-UNNAMED
  -Djna.boot.library.path="$work/native" -Djna.nounpack=true)
archive=()
for i in "${!jars[@]}"; do
  cp="${jars[$i]}:$PWD/bench/target/benchmarks.jar"
  if ((${version%%.*} >= 25)); then
    "$java" "${options[@]}" -XX:AOTCacheOutput="$work/$i.aot" -cp "$cp" \
      dev.kvprov.bench.LockStart "$work/train$i/.kvp_pool_1" > /dev/null 2>&1
    archive[i]=-XX:AOTCache="$work/$i.aot"
  else
    "$java" "${options[@]}" -XX:ArchiveClassesAtExit="$work/$i.jsa" -cp "$cp" \
      dev.kvprov.bench.LockStart "$work/train$i/.kvp_pool_1" > /dev/null 2>&1
    archive[i]=-XX:SharedArchiveFile="$work/$i.jsa"
  fi
done
for ((r = 0; r < runs; r++)); do
  for i in "${!jars[@]}"; do
    rm -rf "$work/pool"
    echo "$i $("$java" "${options[@]}" "${archive[$i]}" -cp "${jars[$i]}:$PWD/bench/target/benchmarks.jar" \
      dev.kvprov.bench.LockStart "$work/pool/.kvp_pool_1")" >> "$work/times"
  done
done
source bench/lib/timing.sh
printf 'JDK %s, median of %d alternating runs, load %s\n' "$version" "$runs" \
  "$(cut -d' ' -f1-3 /proc/loadavg)"
for i in "${!jars[@]}"; do
  printf '  binding %7.1f ms   first locked append %6.1f ms   %s   %s\n' \
    "$(awk -v i="$i" '$1 == i {print $2}' "$work/times" | median)" \
    "$(awk -v i="$i" '$1 == i {print $3}' "$work/times" | median)" \
    "$(awk -v i="$i" '$1 == i {print $4}' "$work/times" | sort | uniq -c | tr -s ' ' | paste -sd,)" \
    "${jars[$i]}"
done
