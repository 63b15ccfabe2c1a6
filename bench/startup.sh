#!/usr/bin/env bash
# Whole-process start-up of kvprov and kvp, with and without the class-data-sharing archive, next
# to a JVM that prints "hello" (docs/performance.md). Needs root (provisioning runs the real
# useradd on a throw-away root) and hyperfine; writes nothing outside a temporary directory.
#   usage: bench/startup.sh [RUNS]     (default 15 runs per command)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-15}
work=$(mktemp -d "${TMPDIR:-/tmp}/kvprov-startup.XXXXXX")
trap 'kill "$sim" 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$here"
./mvnw -q -pl agent,inspect-cli,bench -am package -DskipTests
agent=agent/target/kvprov.jar
kvp=inspect-cli/target/kvp.jar
for tool in "$agent:dev.kvprov.agent.CdsTraining" "$kvp:dev.kvprov.inspect.CdsTraining"; do
  bin/cds-archive "${tool%%:*}" "${tool#*:}" "$work/$(basename "${tool%%:*}" .jar).jsa"
done
# the options every JVM of ours starts with (bin/lib/jvm)
java=(java @bin/lib/jvm/common.options)

# A JVM that does nothing: the floor.
mkdir -p "$work/hello"
printf 'public class Hello { public static void main(String[] a) { System.out.println("hello"); } }\n' \
  > "$work/hello/Hello.java"
javac -d "$work/hello" "$work/hello/Hello.java"

# An image root to provision (kept as a template), the media, the simulated platform.
source bench/lib/platform.sh
platform "$agent" "${java[@]}"

# A 1,024-record pool of every writer's kinds.
java -cp bench/target/benchmarks.jar dev.kvprov.bench.PoolGenerator "$work/pool-1024.kvp" 1024 2>/dev/null

provision="provision --root $work/root --config $work/sim.toml --media-dir $work/demo/media"
hyperfine -N --warmup 2 --runs "$runs" --export-markdown "$work/table.md" \
  --prepare "bash -c 'rm -rf $work/root; cp -a $work/template $work/root'" \
  -n 'java Hello' "${java[*]} -cp $work/hello Hello" \
  -n 'kvprov provision --root, no archive' "${java[*]} -jar $agent $provision" \
  -n 'kvprov provision --root, archive' "${java[*]} -XX:SharedArchiveFile=$work/kvprov.jsa -jar $agent $provision" \
  -n 'kvp list (1,024 records), no archive' "${java[*]} -jar $kvp list --file $work/pool-1024.kvp" \
  -n 'kvp list (1,024 records), archive' "${java[*]} -XX:SharedArchiveFile=$work/kvp.jsa -jar $kvp list --file $work/pool-1024.kvp"
echo
cat "$work/table.md"
