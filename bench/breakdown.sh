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
# thread's, java.lang.management's own left out) and in all (-Xlog:class+load).
#
# Given jars, it compares them instead: each gets its own archive, their runs alternate (one of
# each, then again in the other order), one column each — a before and an after on a busy machine.
# Each run waits (at most 60 s) for both CPUs to be idle first, so that another program's burst
# does not land in one column only.
#
# Needs root (the real useradd on a throw-away root); writes nothing outside a temporary directory.
#   usage: bench/breakdown.sh [RUNS [JAVA [JAR[@FLAG...]...]]]   (7 runs, java on the PATH, the
#          agent's jar; a jar's @FLAGs are JVM flags for its column only, to compare flags)
#   BREAKDOWN_FLAGS="-XX:CICompilerCount=1" bench/breakdown.sh ...   more JVM flags, for all
#   BREAKDOWN_BUILD=no bench/breakdown.sh ...   the jars as they are (no package first: the
#          worktree may be mid-edit while copies of its jars are compared)
#   BREAKDOWN_IDLE_WAIT=0 bench/breakdown.sh ...   seconds a run waits at most for idle CPUs
#          (60): on a machine that is never idle, 0 saves a minute a run; the alternation stays
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-7}
javacmd=${2:-java}
work=$(mktemp -d "${TMPDIR:-/tmp}/kvprov-breakdown.XXXXXX")
trap 'kill "$sim" 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$here"
[[ ${BREAKDOWN_BUILD:-yes} == no ]] || ./mvnw -q -B -ntp -pl agent,inspect-cli -am package -DskipTests
columns=("${@:3}")
((${#columns[@]})) || columns=(agent/target/kvprov.jar)
jars=() flags=()
for column in "${columns[@]}"; do
  jars+=("${column%%@*}")
  [[ $column == *@* ]] && flags+=("$(tr '@' ' ' <<< "${column#*@}")") || flags+=("")
done
kvp=inspect-cli/target/kvp.jar
version=$("$javacmd" -XshowSettings:properties -version 2>&1 |
  awk '/java.specification.version/ {print $3}')
# the options every JVM of ours starts with (bin/lib/jvm); kvprov's own (its one JIT thread) are
# left out, so that a column's @FLAGs can compare them
java=("$javacmd" @bin/lib/jvm/common.options)
read -r -a more <<< "${BREAKDOWN_FLAGS:-}"
java+=("${more[@]}")
# One archive per jar: its own flags, after the common ones.
archives=()
for ((j = 0; j < ${#jars[@]}; j++)); do
  if ((${version%%.*} >= 25)); then
    bin/aot-cache "${jars[j]}" dev.kvprov.agent.CdsTraining "$work/kvprov-$j.aot" "$javacmd" > /dev/null
    archives+=("-XX:AOTCache=$work/kvprov-$j.aot ${flags[j]}")
  else
    bin/cds-archive "${jars[j]}" dev.kvprov.agent.CdsTraining "$work/kvprov-$j.jsa" "$javacmd" > /dev/null
    archives+=("-XX:SharedArchiveFile=$work/kvprov-$j.jsa -Xshare:auto ${flags[j]}")
  fi
done

# An image root to provision (kept as a template), the media, the simulated platform.
source bench/lib/platform.sh
platform "${jars[0]}" "${java[@]}"

BREAKDOWN_IDLE_WAIT=${BREAKDOWN_IDLE_WAIT:-60} python3 - "$work" "$runs" "$kvp" "$version" "${#jars[@]}" "${jars[@]}" "${archives[@]}" \
  "${java[@]}" << 'PY'
import json, os, statistics, subprocess, sys, time
from datetime import datetime

work, runs, kvp, version, count = sys.argv[1:6]
runs, count = int(runs), int(count)
jars = sys.argv[6:6 + count]
archives = [a.split() for a in sys.argv[6 + count:6 + 2 * count]]
java = sys.argv[6 + 2 * count:]
archive = "AOT cache" if int(version.split(".")[0]) >= 25 else "CDS archive"

def idle(seconds=0.3):
    def cpu():
        fields = list(map(int, open("/proc/stat").readline().split()[1:]))
        return sum(fields), fields[3] + fields[4]
    total, free = cpu()
    time.sleep(seconds)
    total2, free2 = cpu()
    return (free2 - free) / max(1, total2 - total) > 0.92

def run(j, extra, phases):
    subprocess.run(["rm", "-rf", f"{work}/root"], check=True)
    subprocess.run(["cp", "-a", f"{work}/template", f"{work}/root"], check=True)
    waited = time.time()
    while time.time() - waited < float(os.environ["BREAKDOWN_IDLE_WAIT"]) and not idle():
        pass
    if os.path.exists(phases):
        os.remove(phases)  # the agent writes a new file, never over one
    launched = time.time_ns()
    child = subprocess.Popen(
        java + archives[j] + extra + [f"-Dkvprov.phases={phases}", "-jar", jars[j], "provision",
                                      "--root", f"{work}/root", "--config", f"{work}/sim.toml",
                                      "--media-dir", f"{work}/demo/media"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    ended = time.time_ns()
    if status != 0:
        sys.exit(f"kvprov provision ({jars[j]}) failed (wait status {status}); run it by hand")
    if not os.path.exists(phases):
        sys.exit(f"kvprov provision ({jars[j]}) wrote no phases to {phases}; run it by hand")
    marks, cpu = [], {}
    for line in open(phases):
        name, value, classes = line.rstrip("\n").split("\t")
        if name.startswith("cpu "):
            thread = "JIT" if name.startswith(("cpu C1 ", "cpu C2 ")) else name[4:]
            cpu[thread] = cpu.get(thread, 0) + int(value)
        else:
            marks.append((name, int(value), int(classes)))
    return launched, ended, marks, cpu, (usage.ru_utime + usage.ru_stime) * 1000, usage.ru_maxrss

def at(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1e9

phases, order = [{} for _ in jars], []
def add(j, name, ms):
    if name not in order:
        order.append(name)
    phases[j].setdefault(name, []).append(ms)

for i in range(runs):
    for j in (range(count) if i % 2 == 0 else reversed(range(count))):
        launched, ended, marks, cpu, cpu_all, rss = run(j, [], f"{work}/phases")
        main = dict((m[0], m[1]) for m in marks if not m[0].startswith("warm-up "))
        rows = json.loads(subprocess.run(
            ["java", "-jar", kvp, "timeline", "--json", "--root", f"{work}/root"],
            capture_output=True, check=True).stdout)["rows"]
        start = next(at(r["time"]) for r in rows
                     if r["kind"] == "start" and r["name"] == "provision")
        end = next(at(r["time"]) for r in rows if r["kind"] == "end" and r["name"] == "provision")
        ms = lambda a, b: (b - a) / 1e6
        add(j, "exec to main: the JVM's start", ms(launched, main["main"]))
        add(j, "CLI: picocli's model of `provision`, parsing", ms(main["main"], main["cli"]))
        add(j, "configuration: TOML read and checked", ms(main["cli"], main["config"]))
        add(j, "logging set-up: logback", ms(main["config"], main["logging"]))
        add(j, "telemetry set-up: the SDK, its sinks", ms(main["logging"], main["sdk"]))
        add(j, "telemetry set-up: the pool (stale records cleared)", ms(main["sdk"], main["pool"]))
        add(j, "to the first span: markers read", ms(main["pool"], start))
        add(j, "until the first span, in all", ms(launched, start))
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
                    add(j, "  " + r["name"], seconds * 1000)
                depth -= 1
                if r["name"].startswith("exec "):
                    children += seconds
                elif r["name"].endswith(".attempt"):
                    http += seconds
                elif r["name"].endswith(".parse"):
                    parsing += seconds  # inside an attempt, but the agent's own work
        span = ms(start, end)
        add(j, "the run's span (`provision`), in all", span)
        add(j, "  of which waiting on child processes", children * 1000)
        add(j, "  of which waiting on HTTP (IMDS, wireserver)", (http - parsing) * 1000)
        add(j, "  of which the agent's own work", span - (children + http - parsing) * 1000)
        add(j, "after the last span: telemetry closed (flushed)", ms(end, main["closed"]))
        add(j, "JVM exit", ms(main["closed"], ended))
        add(j, "whole process (wall clock)", ms(launched, ended))
        add(j, "CPU: the process (user + sys; not its children)", cpu_all)
        add(j, "peak RSS, MB", rss / 1024)
        for thread, label in (("java", "the main thread"), ("JIT", "the JIT compiler threads"),
                              ("kvprov-warm-up", "the warm-up thread")):
            add(j, f"CPU: {label}", cpu.get(thread, 0))
        for name, value, _ in marks:
            if name.startswith("warm-up "):
                add(j, f"warm-up step done, ms after main: {name[8:]}", ms(main["main"], value))

# Classes: a few runs that count them at each mark (java.lang.management's own, loaded at the
# first mark, left out), and log them all (-Xlog:class+load) for those loaded before main.
counted = [{} for _ in jars]
spans = {
    "CLI: picocli's model of `provision`, parsing": ("main", "cli"),
    "configuration: TOML read and checked": ("cli", "config"),
    "logging set-up: logback": ("config", "logging"),
    "telemetry set-up: the SDK, its sinks": ("logging", "sdk"),
    "telemetry set-up: the pool (stale records cleared)": ("sdk", "pool"),
    "the run's span (`provision`), in all": ("pool", "ran"),
    "after the last span: telemetry closed (flushed)": ("ran", "closed"),
}
for j in range(count):
    for i in range(3):
        log = f"{work}/classes.txt"
        _, _, marks, _, _, _ = run(j, ["-Dkvprov.phases.classes=true",
                                    f"-Xlog:class+load:file={log}"], f"{work}/counted")
        loaded = [line.split()[1] for line in open(log)]
        before_main = loaded.index("dev.kvprov.agent.Main")
        main = dict((m[0], m[2]) for m in marks if not m[0].startswith("warm-up "))
        counts = {name: main[b] - main[a] for name, (a, b) in spans.items()}
        counts["exec to main: the JVM's start"] = before_main
        counts["whole process (wall clock)"] = len(loaded) - (main["main"] - before_main)
        for name, n in counts.items():
            counted[j].setdefault(name, []).append(n)

def words(arg):  # an argument file's options, for the header
    if not arg.startswith("@"):
        return [arg]
    return [w for line in open(arg[1:]) if not line.lstrip().startswith("#") for w in line.split()]
print(f"JDK {version}, {archive}, {' '.join(w for a in java[1:] for w in words(a))}")
print(f"medians of {runs} runs, milliseconds; classes loaded during the phase by any thread"
      " (medians of 3 counting runs)")
if count > 1:
    for j, jar in enumerate(jars):
        print(f"  [{j + 1}] {jar} {' '.join(archives[j][2 if archive == 'CDS archive' else 1:])}")
header = "".join(f"{'[' + str(j + 1) + '] ms':>10}{'classes':>8}" for j in range(count))
print(header)
for name in order:
    cells = ""
    for j in range(count):
        values, classes = phases[j].get(name), counted[j].get(name)
        cells += f"{statistics.median(values):10.1f}" if values else f"{'':10}"
        cells += f"{statistics.median(classes):8.0f}" if classes else f"{'':8}"
    print(f"{cells}  {name}")
PY
