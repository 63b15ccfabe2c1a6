#!/usr/bin/env bash
# Where a first boot's time goes: `kvprov provision --root` against the simulator, whole process,
# cut into phases from the process's own trace (its start, read from /proc, is a milestone in the
# trace) and the wall clock around it: the JVM and set-up before the first span, each step, the
# time spent waiting on child processes and on HTTP, and the flush and exit after the last span.
# Needs root (the real useradd on a throw-away root); writes nothing outside a temporary directory.
#   usage: bench/breakdown.sh [RUNS] [JAVA]     (default 7 runs, java on the PATH)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-7}
javacmd=${2:-java}
work=$(mktemp -d "${TMPDIR:-/tmp}/kvprov-breakdown.XXXXXX")
trap 'kill "$sim" 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$here"
./mvnw -q -B -ntp -pl agent,inspect-cli -am package -DskipTests
agent=agent/target/kvprov.jar
kvp=inspect-cli/target/kvp.jar
bin/cds-archive "$agent" dev.kvprov.agent.CdsTraining "$work/kvprov.jsa" "$javacmd" > /dev/null
java=("$javacmd" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData -Xlog:disable
  -Xlog:all=warning:stderr -XX:SharedArchiveFile="$work/kvprov.jsa" -Xshare:auto)

# An image root to provision (kept as a template), the media, the simulated platform.
source bench/lib/platform.sh
platform "$agent" "${java[@]}"

for ((i = 1; i <= runs; i++)); do
  rm -rf "$work/root"
  cp -a "$work/template" "$work/root"
  launched=$(date +%s%N)
  "${java[@]}" -jar "$agent" provision --root "$work/root" --config "$work/sim.toml" \
    --media-dir "$work/demo/media" > /dev/null 2>&1
  ended=$(date +%s%N)
  java -jar "$kvp" timeline --json --root "$work/root" 2> /dev/null > "$work/run-$i.json"
  echo "$launched $ended" > "$work/run-$i.wall"
done

python3 - "$work" "$runs" << 'PY'
import json, statistics, sys
from datetime import datetime

work, runs = sys.argv[1], int(sys.argv[2])

def at(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()

phases = {}
order = []
def add(name, seconds):
    if name not in phases:
        order.append(name)
        phases[name] = []
    phases[name].append(seconds * 1000)

for i in range(1, runs + 1):
    rows = json.load(open(f"{work}/run-{i}.json"))["rows"]
    launched, ended = (int(x) / 1e9 for x in open(f"{work}/run-{i}.wall").read().split())
    process = next(at(r["time"]) for r in rows if r["kind"] == "milestone" and r["name"] == "kvprov")
    start = next(at(r["time"]) for r in rows if r["kind"] == "start" and r["name"] == "provision")
    end = next(at(r["time"]) for r in rows if r["kind"] == "end" and r["name"] == "provision")
    add("exec to the JVM's start (/proc)", process - launched)
    add("JVM start, CLI, config, telemetry, until the first span", start - process)
    # the run's own steps: every span directly in provision, in order
    depth, waiting = 0, {"child processes": 0.0, "HTTP (IMDS, wireserver)": 0.0}
    for r in rows:
        if r["name"] == "provision":
            continue
        if r["kind"] == "start":
            depth += 1
        elif r["kind"] == "end":
            if depth == 1:
                add("  " + r["name"], r["duration_s"] or 0.0)
            depth -= 1
            if r["name"].startswith("exec "):
                waiting["child processes"] += r["duration_s"] or 0.0
            elif r["name"].endswith(".attempt"):
                waiting["HTTP (IMDS, wireserver)"] += r["duration_s"] or 0.0
    add("provision span, in all", end - start)
    for name, seconds in waiting.items():
        add("  of which waiting on " + name, seconds)
    add("after the last span: flush, exporters, exit", ended - end)
    add("whole process (wall)", ended - launched)

print(f"median of {runs} runs, milliseconds")
for name in order:
    print(f"{statistics.median(phases[name]):9.1f}  {name}")
PY
