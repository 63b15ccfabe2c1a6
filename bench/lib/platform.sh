# Sourced by bench's whole-process scripts: what a provisioning run needs, in $work.
#   platform AGENT_JAR JAVA...
# Makes $work/template, an unprovisioned root (the demo's, from a run with neither IMDS nor
# media), $work/demo/media with the demo's media, and starts a simulated platform answering at
# once ($sim, its pid; $work/sim.toml points kvprov at it). The caller kills $sim.
platform() {
  local agent=$1
  shift
  "$@" -jar "$agent" demo --scenario imds-down-no-media --dir "$work/demo" > /dev/null 2>&1 || true
  unzip -p "$agent" dev/kvprov/agent/demo/ovf-env.xml > "$work/demo/media/ovf-env.xml"
  rm -rf "$work/demo/root/var/lib/hyperv" "$work/demo/root/var/lib/kvprov"
  mv "$work/demo/root" "$work/template"
  "$@" -jar "$agent" simulate --scenario ok > "$work/sim.out" 2>&1 &
  sim=$!
  for _ in $(seq 100); do grep -q '^\[wireserver\]' "$work/sim.out" 2> /dev/null && break; sleep 0.1; done
  sed -n '/^\[imds\]/,$p' "$work/sim.out" > "$work/sim.toml"
}
