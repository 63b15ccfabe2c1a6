#!/usr/bin/env bash
# Where a first boot's time goes: `kvprov provision --root` against the simulator (the real
# useradd, visudo, ssh-keygen and sshd -t), whole process, with the launcher's flags and a start-up
# archive for the JVM given (an AOT cache on JDK 25 and later, a CDS archive before), cut into
# phases by
#   - the agent's own marks (-Dkvprov.phases=FILE: the wall-clock end of each phase, each thread's
#     CPU time; StartupPhases): the JVM's start until main, picocli, the configuration, logging,
#     the telemetry's SDK and its pool, the warm-up thread's steps;
#   - the run's trace in KVP (`kvp timeline --json`): the first span, each step, the time waiting
#     on child processes and on HTTP, and so the agent's own work in between;
#   - the wall clock around the process: exec, and exit after the last mark.
# Then a few runs count the classes loaded in each phase (-Dkvprov.phases.classes=true; any
# thread's, and java.lang.management's own left out) and in all (-Xlog:class+load).
# Needs root (the real useradd on a throw-away root); writes nothing outside a temporary directory.
#   usage: bench/breakdown.sh [RUNS] [JAVA]     (default 7 runs, java on the PATH)
#   BREAKDOWN_FLAGS="-XX:CICompilerCount=1" bench/breakdown.sh ...   more JVM flags, to try some
#   BREAKDOWN_FLAGS="-Dkvprov.warmup=false" bench/breakdown.sh ...   without the warm-up thread
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
version=$("$javacmd" -XshowSettings:properties -version 2>&1 |
  awk '/java.specification.version/ {print $3}')
java=("$javacmd" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData -Xlog:disable
  -Xlog:all=warning:stderr)
if ((${version%%.*} >= 25)); then
  archive="AOT cache"
  bin/aot-cache "$agent" dev.kvprov.agent.CdsTraining "$work/kvprov.aot" "$javacmd" > /dev/null
  java+=(-XX:AOTCache="$work/kvprov.aot")
else
  archive="CDS archive"
  bin/cds-archive "$agent" dev.kvprov.agent.CdsTraining "$work/kvprov.jsa" "$javacmd" > /dev/null
  java+=(-XX:SharedArchiveFile="$work/kvprov.jsa" -Xshare:auto)
fi
read -r -a more <<< "${BREAKDOWN_FLAGS:-}"
java+=("${more[@]}")

# An image root to provision (kept as a template), the media, the simulated platform.
source bench/lib/platform.sh
platform "$agent" "${java[@]}"

python3 - "$work" "$runs" "$agent" "$kvp" "$version" "$archive" "${java[@]}" << 'PY'
import json, os, re, statistics, subprocess, sys, time
from datetime import datetime

work, runs, agent, kvp, version, archive = sys.argv[1:7]
runs = int(runs)
java = sys.argv[7:]
provision = ["-jar", agent, "provision", "--root", f"{work}/root",
             "--config", f"{work}/sim.toml", "--media-dir", f"{work}/demo/media"]

def run(extra, phases):
    subprocess.run(["rm", "-rf", f"{work}/root"], check=True)
    subprocess.run(["cp", "-a", f"{work}/template", f"{work}/root"], check=True)
    launched = time.time_ns()
    child = subprocess.Popen(java + extra + [f"-Dkvprov.phases={phases}"] + provision,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    ended = time.time_ns()
    if status != 0:
        sys.exit(f"kvprov provision failed (wait status {status}); run it by hand to see why")
    marks, cpu = [], {}
    for line in open(phases):
        name, value, classes = line.rstrip("\n").split("\t")
        if name.startswith("cpu "):
            thread = "JIT compiler threads" if name.startswith("cpu C1") or name.startswith(
                "cpu C2") else name[4:]
            cpu[thread] = cpu.get(thread, 0) + int(value)
        else:
            marks.append((name, int(value), int(classes)))
    return launched, ended, marks, cpu, (usage.ru_utime + usage.ru_stime) * 1000

def at(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1e9

phases, order = {}, []
def add(name, ms):
    if name not in phases:
        order.append(name)
        phases[name] = []
    phases[name].append(ms)

for i in range(runs):
    launched, ended, marks, cpu, cpu_all = run([], f"{work}/phases-{i}")
    main = dict((m[0], m[1]) for m in marks if not m[0].startswith("warm-up "))
    rows = json.loads(subprocess.run(
        ["java", "-jar", kvp, "timeline", "--json", "--root", f"{work}/root"],
        capture_output=True, check=True).stdout)["rows"]
    start = next(at(r["time"]) for r in rows if r["kind"] == "start" and r["name"] == "provision")
    end = next(at(r["time"]) for r in rows if r["kind"] == "end" and r["name"] == "provision")
    ms = lambda a, b: (b - a) / 1e6
    add("exec to main: the JVM's start", ms(launched, main["main"]))
    add("CLI: picocli's model of `provision`, parsing", ms(main["main"], main["cli"]))
    add("configuration: TOML read and checked", ms(main["cli"], main["config"]))
    add("logging set-up: logback", ms(main["config"], main["logging"]))
    add("telemetry set-up: the SDK, its sinks", ms(main["logging"], main["sdk"]))
    add("telemetry set-up: the pool (stale records cleared)", ms(main["sdk"], main["pool"]))
    add("to the first span: markers read", ms(main["pool"], start))
    add("until the first span, in all", ms(launched, start))
    # the run's own steps: every span directly in provision, in order; the waits within
    depth, children, http, parsing = 0, 0.0, 0.0, 0.0
    for r in rows:
        if r["name"] == "provision":
            continue
        if r["kind"] == "start":
            depth += 1
        elif r["kind"] == "end":
            seconds = r["duration_s"] or 0.0
            if depth == 1:
                add("  " + r["name"], seconds * 1000)
            depth -= 1
            if r["name"].startswith("exec "):
                children += seconds
            elif r["name"].endswith(".attempt"):
                http += seconds
            elif r["name"].endswith(".parse"):
                parsing += seconds  # inside an attempt: the agent's own work
    span = ms(start, end)
    add("the run's span (`provision`), in all", span)
    add("  of which waiting on child processes", children * 1000)
    add("  of which waiting on HTTP (IMDS, wireserver)", (http - parsing) * 1000)
    add("  of which the agent's own work", span - (children + http - parsing) * 1000)
    add("after the last span: telemetry closed (flushed)", ms(end, main["closed"]))
    add("JVM exit", ms(main["closed"], ended))
    add("whole process (wall clock)", ms(launched, ended))
    add("CPU: the process (user + sys, children not counted)", cpu_all)
    for thread, label in (("java", "the main thread"), ("JIT compiler threads", "the JIT compiler"),
                          ("kvprov-warm-up", "the warm-up thread")):
        add(f"CPU: {label}", cpu.get(thread, 0))
    for name, value, _ in marks:
        if name.startswith("warm-up "):
            add(f"warm-up step done, ms after main: {name[8:]}", ms(main["main"], value))

# Classes: a few runs that count them at each mark (java.lang.management's own, loaded at the
# first mark, left out), and log them all (-Xlog:class+load) for those loaded before main.
counted = {}
for i in range(3):
    log = f"{work}/classes-{i}.txt"
    _, _, marks, _, _ = run(["-Dkvprov.phases.classes=true", f"-Xlog:class+load:file={log}"],
                            f"{work}/counted-{i}")
    loaded = [line.split()[1] for line in open(log)]
    before_main = loaded.index("dev.kvprov.agent.Main")
    main = dict((m[0], m[2]) for m in marks if not m[0].startswith("warm-up "))
    for name, (a, b) in {
        "exec to main: the JVM's start": (None, None),
        "CLI: picocli's model of `provision`, parsing": ("main", "cli"),
        "configuration: TOML read and checked": ("cli", "config"),
        "logging set-up: logback": ("config", "logging"),
        "telemetry set-up: the SDK, its sinks": ("logging", "sdk"),
        "telemetry set-up: the pool (stale records cleared)": ("sdk", "pool"),
        "the run's span (`provision`), in all": ("pool", "ran"),
        "after the last span: telemetry closed (flushed)": ("ran", "closed"),
        "whole process (wall clock)": ("all", None),
    }.items():
        if a is None:
            count = before_main
        elif a == "all":
            count = len(loaded) - (main["main"] - before_main)
        else:
            count = main[b] - main[a]
        counted.setdefault(name, []).append(count)

print(f"JDK {version}, {archive}; medians of {runs} runs, milliseconds; classes loaded during each"
      " phase (by any thread; medians of 3 counting runs)")
for name in order:
    classes = counted.get(name)
    shown = f"{statistics.median(classes):7.0f}" if classes else "       "
    print(f"{statistics.median(phases[name]):9.1f} {shown}  {name}")
PY
