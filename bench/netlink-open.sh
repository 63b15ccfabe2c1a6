#!/usr/bin/env bash
# What a Savable VM pays for hearing its NIC swap from netlink: in a fresh JVM (the launcher's
# flags, JNA's native part from a directory as the Debian package gives it), the first
# NetlinkSocket.open() — JNA's start, the five functions' binding, socket(2) and bind(2) — then a
# second one. "cold": JNA not started yet; "warm": started first (timed apart, jna-start), as in
# the agent, whose KVP pool lock (kvp's LibC, flock) has started it before a Savable VM's watch.
# Runs alternate cold and warm; prints every run and the load average before and after.
# Needs netlink (Linux); root is not needed.
#
#   usage: [JAVA=path/to/java] bench/netlink-open.sh [RUNS]   (default 11)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-11}
cd "$here"
jar=agent/target/kvprov.jar
main=agent/target/test-classes/dev/kvprov/agent/provision/NetlinkLinksMain.class
[[ -f $jar && -f $main ]] || ./mvnw -q -B -ntp -pl agent -am package -DskipTests
work=$(mktemp -d "${TMPDIR:-/tmp}/kvprov-netlink.XXXXXX")
trap 'rm -rf "$work"' EXIT
case $(uname -m) in
  x86_64) arch=x86-64 ;;
  aarch64) arch=aarch64 ;;
  *) arch=$(uname -m) ;;
esac
(cd "$work" && unzip -q -j "$here/$jar" "com/sun/jna/linux-$arch/libjnidispatch.so")
java=${JAVA:-java}
flags=(@bin/lib/jvm/common.options @bin/lib/jvm/kvprov.options
  "-Djna.boot.library.path=$work" -Djna.nounpack=true)
echo "load before: $(cat /proc/loadavg)"
for ((i = 1; i <= runs; i++)); do
  for mode in cold warm; do
    printf '%-4s ' "$mode"
    "$java" "${flags[@]}" -cp "$jar:agent/target/test-classes" \
      dev.kvprov.agent.provision.NetlinkLinksMain cost "$mode"
  done
done
echo "load after: $(cat /proc/loadavg)"
