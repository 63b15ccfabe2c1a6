#!/usr/bin/env bash
# Where a kvp run's time goes, phase by phase: kvp's own marks (-Dkvp.phases=true: milliseconds
# since the JVM started and classes loaded by the end of each phase), the medians of RUNS runs of
# `kvp list`, `kvp tree` and `kvp timeline` on the 1,024- and 100,000-record pools of bench's generator, with the
# launcher's flags and a start-up archive for the JVM given (AOT cache on JDK 25+, CDS before).
#
#   usage: bench/kvp-phases.sh [RUNS] [JAVA]
#     RUNS   runs of each command (default 7)
#     JAVA   the java to measure (default: java on the PATH), e.g.
#            bench/kvp-phases.sh 7 /usr/lib/jvm/temurin-25-jdk-amd64/bin/java
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-7}
java=${2:-java}
work=$(mktemp -d "${TMPDIR:-/tmp}/kvp-phases.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$here"
./mvnw -q -B -ntp -pl inspect-cli,bench -am package -DskipTests
jar=inspect-cli/target/kvp.jar
version=$("$java" -XshowSettings:properties -version 2>&1 | awk '/java.specification.version/ {print $3}')
# as bin/kvp starts it (bin/lib/jvm)
flags=(@bin/lib/jvm/common.options @bin/lib/jvm/kvp.options)
case $(bin/start-up-archive "$jar" dev.kvprov.inspect.CdsTraining "$work/kvp" "$java" 2> /dev/null) in
  aot) flags+=(-XX:AOTCache="$work/kvp.aot") ;;
  cds) flags+=(-XX:SharedArchiveFile="$work/kvp.jsa") ;;
esac

source bench/lib/timing.sh

echo "JDK $version, medians of $runs runs (ms since the JVM started; classes loaded by then)"
for records in 1024 100000; do
  pool=$work/pool-$records.kvp
  java -cp bench/target/benchmarks.jar dev.kvprov.bench.PoolGenerator "$pool" "$records" 2> /dev/null
  for command in list tree timeline; do
    : > "$work/marks"
    for ((i = 0; i < runs; i++)); do
      start=$(date +%s%N)
      # exit 1 says some items have problems, as the generated pools do on purpose
      status=0
      "$java" "${flags[@]}" -Dkvp.phases=true -jar "$jar" "$command" --file "$pool" \
        2>> "$work/marks" > /dev/null || status=$?
      if ((status > 1)); then
        echo "kvp-phases: kvp $command --file $pool failed (exit $status):" >&2
        grep -v '^kvp phase:' "$work/marks" >&2
        exit 1
      fi
      echo "wall $((($(date +%s%N) - start) / 1000000))" >> "$work/walls"
    done
    printf '\nkvp %s, %d records\n' "$command" "$records"
    # "kvp phase:  <ms> ms <+ms> ms <classes> classes  <name>", in the order kvp marks them
    grep '^kvp phase:' "$work/marks" | sed 's/.* classes  //' | awk '!seen[$0]++' |
      while IFS= read -r phase; do
        at=$(grep -F "classes  $phase" "$work/marks" | awk '{print $3}' | median)
        classes=$(grep -F "classes  $phase" "$work/marks" | awk '{print $7}' | median)
        printf '  %6s ms %6s classes  %s\n' "$at" "$classes" "$phase"
      done
    printf '  %6s ms                 the whole process (wall clock)\n' \
      "$(awk '{print $2}' "$work/walls" | median)"
    rm -f "$work/walls"
  done
done
