#!/usr/bin/env bash
# Where a kvp run's time goes, phase by phase: kvp's own marks (-Dkvp.phases=true: milliseconds
# since the JVM started and classes loaded by the end of each phase), the medians of RUNS runs of
# `kvp list`, `kvp tree` and `kvp timeline` on the 1,024- and 100,000-record pools of bench's generator, with the
# launcher's flags and a start-up archive for the JVM given (AOT cache on JDK 25+, CDS before).
#
#   usage: [KVP_JARS="BEFORE.jar AFTER.jar"] [KVP_LIVE=1] [KVP_RECORDS="1024"] [KVP_COMMANDS="list"]
#          bench/kvp-phases.sh [RUNS] [JAVA]
#     RUNS          runs of each command (default 7)
#     JAVA          the java to measure (default: java on the PATH), e.g.
#                   bench/kvp-phases.sh 7 /usr/lib/jvm/temurin-25-jdk-amd64/bin/java
#     KVP_JARS      kvp jars to compare, alternating run by run, each with its own start-up archive
#                   (default: inspect-cli/target/kvp.jar, built first)
#     KVP_LIVE=1    the pools named as Hyper-V names them (.kvp_pool_1): kvp takes its locks, as
#                   on a VM (default: pool-N.kvp, a copy's name, read unlocked)
#     KVP_RECORDS   the pools' sizes (default "1024 100000"); KVP_COMMANDS: default "list tree timeline"
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-7}
java=${2:-java}
work=$(mktemp -d "${TMPDIR:-/tmp}/kvp-phases.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$here"
if [[ -n ${KVP_JARS:-} ]]; then
  read -r -a jars <<< "$KVP_JARS"
  [[ -f bench/target/benchmarks.jar ]] || ./mvnw -q -B -ntp -pl inspect-cli,bench -am package -DskipTests
else
  ./mvnw -q -B -ntp -pl inspect-cli,bench -am package -DskipTests
  jars=(inspect-cli/target/kvp.jar)
fi
version=$("$java" -XshowSettings:properties -version 2>&1 | awk '/java.specification.version/ {print $3}')
# as bin/kvp starts it (bin/lib/jvm)
flags=(@bin/lib/jvm/common.options @bin/lib/jvm/kvp.options)
archives=()
source bench/lib/archive.sh
for j in "${!jars[@]}"; do
  archives[$j]=$(kvp_archive_option "${jars[$j]}" "$work/kvp$j" "$java" 2> /dev/null)
done

source bench/lib/timing.sh

echo "JDK $version, medians of $runs runs (ms since the JVM started; classes loaded by then);" \
  "load $(cut -d' ' -f1-3 /proc/loadavg)"
for records in ${KVP_RECORDS:-1024 100000}; do
  pool=$work/pool-$records.kvp
  if [[ ${KVP_LIVE:-} == 1 ]]; then
    mkdir "$work/live-$records"
    pool=$work/live-$records/.kvp_pool_1
  fi
  java -cp bench/target/benchmarks.jar dev.kvprov.bench.PoolGenerator "$pool" "$records" 2> /dev/null
  for command in ${KVP_COMMANDS:-list tree timeline}; do
    for j in "${!jars[@]}"; do : > "$work/marks$j"; done
    for ((i = 0; i < runs; i++)); do
      for j in "${!jars[@]}"; do
        start=$(date +%s%N)
        # exit 1 says some items have problems, as the generated pools do on purpose
        status=0
        "$java" "${flags[@]}" "${archives[$j]}" -Dkvp.phases=true -jar "${jars[$j]}" "$command" \
          --file "$pool" 2>> "$work/marks$j" > /dev/null || status=$?
        if ((status > 1)); then
          echo "kvp-phases: kvp $command --file $pool failed (exit $status):" >&2
          grep -v '^kvp phase:' "$work/marks$j" >&2
          exit 1
        fi
        echo "wall $((($(date +%s%N) - start) / 1000000))" >> "$work/walls$j"
      done
    done
    for j in "${!jars[@]}"; do
      printf '\nkvp %s, %d records%s\n' "$command" "$records" \
        "$( ((${#jars[@]} > 1)) && echo ", ${jars[$j]}")"
      # "kvp phase:  <ms> ms <+ms> ms <classes> classes  <name>", in the order kvp marks them
      grep '^kvp phase:' "$work/marks$j" | sed 's/.* classes  //' | awk '!seen[$0]++' |
        while IFS= read -r phase; do
          at=$(grep -F "classes  $phase" "$work/marks$j" | awk '{print $3}' | median)
          classes=$(grep -F "classes  $phase" "$work/marks$j" | awk '{print $7}' | median)
          printf '  %6s ms %6s classes  %s\n' "$at" "$classes" "$phase"
        done
      printf '  %6s ms                 the whole process (wall clock)\n' \
        "$(awk '{print $2}' "$work/walls$j" | median)"
      rm -f "$work/walls$j"
    done
  done
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
