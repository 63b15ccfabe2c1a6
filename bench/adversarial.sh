#!/usr/bin/env bash
# Attacks on a first boot, one case at a time or all of them: stalled and trickled answers, a long
# Retry-After, a full state directory, a boot killed inside useradd, a pool lock held elsewhere, a
# full pool directory, an image whose links lead out of it. Each case provisions a fresh demo root
# against the simulator on loopback and prints one line of what happened (exit status, time, what
# reached the platform and the pool, what was written where it must not be) and whether it ended
# within its budget + 1 s: the time an unattacked boot takes here (the slowest of three, measured
# first, under whatever load the machine has) plus what the configuration lets the attack cost
# (6 s of IMDS or wireserver retries, two lock timeouts of 5 s; nothing for the others).
#
#   bench/adversarial.sh all                         every case, with this checkout's agent
#   bench/adversarial.sh CASE [ARGS]                 one case: baseline, network SCENARIO [SIM OPTIONS],
#                                                    full-state, useradd-crash, lock SECONDS,
#                                                    full-pool, link PATH
#   KVPROV_JAR=old/kvprov.jar bench/adversarial.sh all   the same attacks on another agent jar
#
# Needs root (real useradd, mount namespaces for the full disks) and python3. Writes nothing
# outside temporary folders. The simulator and the demo root come from this checkout's jar.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tool=$here/agent/target/kvprov.jar
[[ -f $tool ]] || (cd "$here" && ./mvnw -q -B -ntp -pl agent -am package -DskipTests)
agent=${KVPROV_JAR:-$tool}
work=$(mktemp -d "${TMPDIR:-/tmp}/kvprov-adversarial.XXXXXX")
sim=
trap 'stop_sim; rm -rf "$work"' EXIT

stop_sim() { [[ -n $sim ]] && kill "$sim" 2> /dev/null && wait "$sim" 2> /dev/null; sim=; }

# A fresh demo root (nothing provisioned yet) and its media, in $w.
fresh_root() {
  w=$(mktemp -d "$work/case.XXXXXX")
  java -jar "$tool" demo --scenario imds-down-no-media --dir "$w/demo" > /dev/null 2>&1
  unzip -p "$tool" dev/kvprov/agent/demo/ovf-env.xml > "$w/demo/media/ovf-env.xml"
  R=$w/demo/root
  rm -rf "$R/var/lib/hyperv" "$R/var/lib/kvprov"
  mkdir -p "$R/var/lib/hyperv" "$R/var/lib/kvprov"
  provision_command=(java -jar "$agent" provision --root "$R" --config "$w/sim.toml"
    --media-dir "$w/demo/media")
}

# The simulator with SIM OPTIONS, and $w/sim.toml pointing at it (read 3 s, budget 6 s).
start_sim() {
  java -jar "$tool" simulate "$@" > "$w/sim.out" 2>&1 &
  sim=$!
  for _ in $(seq 100); do grep -q '^\[wireserver\]' "$w/sim.out" 2> /dev/null && break; sleep 0.1; done
  sed -n '/^\[imds\]/,$p' "$w/sim.out" |
    sed 's/^endpoint = \(.*\)$/endpoint = \1\nread_timeout_secs = 3\ntotal_retry_timeout_secs = 6/' > "$w/sim.toml"
}

provision() {
  "${provision_command[@]}"
}

# What the platform and the pool got.
outcome() {
  local platform pool
  platform=$(grep -o '"state":"[A-Za-z]*"' "$w/sim.out" | tail -1)
  pool=$(python3 - "$R/var/lib/hyperv/.kvp_pool_1" << 'EOF'
import sys
try:
    d = open(sys.argv[1], "rb").read()
except OSError:
    print("no pool"); sys.exit()
print("pool %d records, torn %d bytes, report %s" % (len(d) // 2560, len(d) % 2560,
      "present" if b"PROVISIONING_REPORT" in d else "MISSING"))
EOF
  )
  echo "platform ${platform:-got nothing}; $pool"
}

# Runs a command, its output discarded; prints its exit status and how long it took, and keeps
# the seconds in $took.
took=0
timed() {
  local start end status
  start=$(date +%s.%N)
  "$@" > /dev/null 2>&1
  status=$?
  end=$(date +%s.%N)
  took=$(echo "$end - $start" | bc)
  printf 'exit %d after %.1f s' "$status" "$took"
}

# An unattacked boot's time here: the slowest of three (a loaded machine's boots vary by seconds).
baseline=0
case_baseline() {
  local times=()
  for _ in 1 2 3; do
    fresh_root
    start_sim --scenario ok
    timed "${provision_command[@]}" > /dev/null
    times+=("$took")
    stop_sim
  done
  baseline=$(printf '%s\n' "${times[@]}" | sort -n | tail -1)
  printf 'baseline: an unattacked boot takes up to %.1f s (%.1f, %.1f and %.1f s)\n' \
    "$baseline" "${times[@]}"
}

# Whether the last timed run ended within the baseline + ALLOWED seconds + 1 s; each verdict is
# kept in $work/verdicts (this runs in the subshell of the line that prints it).
budget() {
  local limit
  limit=$(echo "$baseline + $1 + 1" | bc)
  if (($(echo "$took <= $limit" | bc))); then
    echo within >> "$work/verdicts"
    printf 'within budget (%.1f s)' "$limit"
  else
    echo over >> "$work/verdicts"
    printf 'OVER BUDGET (%.1f s)' "$limit"
  fi
}

case_network() {
  fresh_root
  start_sim --scenario "$@"
  local result
  result=$(timed timeout 300 "${provision_command[@]}"; echo " $took")
  took=${result##* }
  # what the attacked service may cost: its whole retry budget in $w/sim.toml
  echo "network $*: ${result% *}, $(budget 6); $(outcome)"
  stop_sim
}

case_full_state() {
  fresh_root
  start_sim --scenario ok
  local result
  result=$(timed unshare -m sh -c 'mount -t tmpfs -o size=64k,nr_inodes=64 full "$1" &&
    dd if=/dev/zero of="$1/.fill" bs=4k 2> /dev/null; i=0
    while touch "$1/.i$i" 2> /dev/null; do i=$((i+1)); done; shift; "$@"' sh \
    "$R/var/lib/kvprov" "${provision_command[@]}"; echo " $took")
  took=${result##* }
  echo "full state directory: ${result% *}, $(budget 0); $(outcome)"
  stop_sim
}

case_useradd_crash() {
  fresh_root
  start_sim --scenario ok
  # useradd writes passwd, then shadow: a FIFO where the new shadow goes holds it in between.
  mkfifo "$R/etc/shadow+"
  setsid "${provision_command[@]}" > /dev/null 2>&1 &
  local boot=$!
  # killed on purpose: no "Killed" line from the shell
  disown "$boot"
  until grep -q '^azureuser:' "$R/etc/passwd"; do sleep 0.02; done
  pkill -KILL -s "$(ps -o sid= -p "$boot" | tr -d ' ')"
  while kill -0 "$boot" 2> /dev/null; do sleep 0.05; done
  rm -f "$R/etc/shadow+"
  local runs="" slowest=0
  for run in 1 2; do
    runs+=" $(timed provision),"
    (($(echo "$took > $slowest" | bc))) && slowest=$took
  done
  took=$slowest
  echo "boot killed inside useradd: next runs$runs $(budget 0); keys $(cat "$R/home/azureuser/.ssh/authorized_keys" 2> /dev/null | wc -l), locks left $(ls "$R"/etc/*.lock 2> /dev/null | wc -l); $(outcome)"
  stop_sim
}

case_lock() {
  fresh_root
  start_sim --scenario ok
  : > "$R/var/lib/hyperv/.kvp_pool_1"
  python3 -c "
import fcntl, sys, time
f = open(sys.argv[1], 'rb'); fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True)
time.sleep(float(sys.argv[2]))" "$R/var/lib/hyperv/.kvp_pool_1" "$1" > "$w/holder" &
  local holder=$!
  until grep -q held "$w/holder"; do sleep 0.05; done
  local result
  result=$(timed provision)
  wait "$holder"
  # What the run handed over is written by its background writer once the lock is free.
  for _ in $(seq 100); do
    grep -q 'late-records: ' "$R/var/lib/kvprov/late-records.log" 2> /dev/null && break
    sleep 0.1
  done
  took=${result##* after }
  took=${took% s}
  # the boot waits one lock timeout (5 s) in all, and one more at its end
  echo "pool flock held $1 s: $result, $(budget "$(($1 < 10 ? $1 : 10))"); $(outcome)"
  stop_sim
}

case_full_pool() {
  fresh_root
  start_sim --scenario ok
  local result start
  start=$(date +%s.%N)
  # 16 KiB left where the pool is; the pool is read back inside the namespace, before it goes.
  result=$(unshare -m sh -c 'mount -t tmpfs -o size=64k full "$1" &&
    dd if=/dev/zero of="$1/.fill" bs=4k 2> /dev/null; truncate -s -16384 "$1/.fill"; d=$1; shift
    "$@" > /dev/null 2> /dev/null; s=$?; cp "$d/.kvp_pool_1" "$d/../pool.copy" 2> /dev/null; echo "exit $s"' \
    sh "$R/var/lib/hyperv" "${provision_command[@]}")
  mv "$R/var/lib/pool.copy" "$R/var/lib/hyperv/.kvp_pool_1" 2> /dev/null
  took=$(echo "$(date +%s.%N) - $start" | bc)
  echo "pool directory with 16 KiB left: $result after $(printf %.1f "$took") s, $(budget 0); $(outcome)"
  stop_sim
}

case_link() {
  fresh_root
  start_sim --scenario ok
  local outside=$w/outside
  mkdir -p "$outside"
  [[ -d $R/$1 ]] && cp -a "$R/$1/." "$outside/" 2> /dev/null
  rm -rf "${R:?}/$1"
  mkdir -p "$(dirname "$R/$1")"
  ln -s "$outside" "$R/$1"
  local before after changed
  before=$(find "$outside" -type f | wc -l)
  (cd "$outside" && find . -type f -exec sha256sum {} + | sort) > "$w/outside.before"
  local result
  result=$(timed provision; echo " $took")
  took=${result##* }
  after=$(find "$outside" -type f | wc -l)
  # written outside: a file that is new there, or one whose bytes changed
  changed=$( (cd "$outside" && find . -type f -exec sha256sum {} + | sort) |
    comm -13 "$w/outside.before" - | wc -l)
  echo "image whose /$1 links out: ${result% *}, $(budget 0); files outside the root $before before, $after after, $changed written"
  stop_sim
}

run_case() {
  local name=$1
  shift
  case $name in
    baseline) case_baseline ;;
    network) case_network "$@" ;;
    full-state) case_full_state ;;
    useradd-crash) case_useradd_crash ;;
    lock) case_lock "$@" ;;
    full-pool) case_full_pool ;;
    link) case_link "$@" ;;
    *) echo "unknown case: $name (see the top of $0)" >&2; return 2 ;;
  esac
}

if [[ ${1:-} == all ]]; then
  echo "agent: $agent"
  run_case baseline
  run_case network imds-stalls --failures 1000
  run_case network imds-trickles --failures 1000
  run_case network wireserver-stalls --failures 1000
  run_case network retry-after --retry-after 100000 --failures 1
  run_case network retry-after --retry-after 301 --failures 1
  run_case full-state
  run_case useradd-crash
  run_case lock 8
  run_case lock 60
  run_case full-pool
  for link in home home/azureuser etc/sudoers.d etc/ssh; do run_case link "$link"; done
  echo "$(grep -c within "$work/verdicts") of $(wc -l < "$work/verdicts") cases within budget + 1 s"
  ! grep -q over "$work/verdicts" || exit 1
elif [[ $# -gt 0 ]]; then
  [[ $1 == baseline ]] || run_case baseline
  run_case "$@"
else
  sed -n '2,20p' "$0"
  exit 2
fi
