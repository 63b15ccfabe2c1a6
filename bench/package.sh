#!/usr/bin/env bash
# The Debian package's size and start-up (docs/performance.md, "The package"): for each .deb given,
# its size, Installed-Size, what dpkg installs (du of its data) and what the postinst adds
# (/var/cache/kvprov's start-up archives, built here as the postinst builds them, for JDK 17 and,
# given one, a JDK 25); then, alternating with hyperfine, each package's `kvp --version`, `kvp
# list` on a 1,024-record live-pool name and `kvprov --version`, started as its launchers start
# them (options, archive, JNA's library), and the checkout's launcher against the java command it
# execs; then the package's launcher alone (a no-op in place of java), this checkout's and, with
# --launcher-before REV, the one of that commit. Needs hyperfine, dpkg-deb, strace; the pools'
# generator from bench (built by `./mvnw -q -B -ntp -pl inspect-cli,bench -am package
# -DskipTests`).
#   usage: bench/package.sh [--runs N] [--java25 JAVA] [--launcher-before REV] DEB...
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=20 java25='' before=''
while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --java25) java25=$2; shift 2 ;;
    --launcher-before) before=$2; shift 2 ;;
    *) break ;;
  esac
done
work=$(mktemp -d "${TMPDIR:-/tmp}/kvprov-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
java17=$(readlink -f "$(command -v java)")
javas=("$java17")
[[ -n "$java25" ]] && javas+=("$java25")
echo "load: $(cat /proc/loadavg)"
mkdir -p "$work/pools"
java -cp "$here/bench/target/benchmarks.jar" dev.kvprov.bench.PoolGenerator \
  "$work/pools/.kvp_pool_1" 1024 > /dev/null
n=0
declare -a commands=()
for deb in "$@"; do
  n=$((n + 1))
  root="$work/deb$n"
  dpkg-deb -x "$deb" "$root"
  echo "== $(basename "$deb")"
  echo ".deb: $(stat -c %s "$deb") bytes; Installed-Size: $(dpkg-deb -f "$deb" Installed-Size) KiB;" \
    "installed files: $(du -sk "$root" | cut -f1) KiB"
  for java in "${javas[@]}"; do
    cache="$work/cache$n-$(basename "$(dirname "$(dirname "$java")")")"
    for tool in kvprov:dev.kvprov.agent.CdsTraining kvp:dev.kvprov.inspect.CdsTraining; do
      "$here/bin/start-up-archive" "$root/usr/share/kvprov/${tool%%:*}.jar" "${tool#*:}" \
        "$cache/${tool%%:*}" "$java" > /dev/null
    done
    echo "start-up archives for $java: $(du -sk "$cache" | cut -f1) KiB" \
      "($(cd "$cache" && echo *))"
    # what the package's launchers run (bin/lib/launch.sh): options, archive, JNA's library
    jna=()
    [[ -f "$root/usr/lib/kvprov/libjnidispatch.so" ]] \
      && jna=("-Djna.boot.library.path=$root/usr/lib/kvprov" -Djna.nounpack=true)
    for tool in kvp kvprov; do
      archive=$cache/$tool.jsa
      [[ -f $archive ]] || archive=$cache/$tool.aot
      flag=-XX:SharedArchiveFile=$archive
      [[ $archive == *.aot ]] && flag=-XX:AOTCache=$archive
      start="$java @$here/bin/lib/jvm/common.options @$here/bin/lib/jvm/$tool.options $flag"
      start+=" ${jna[*]} -jar $root/usr/share/kvprov/$tool.jar"
      if [[ $tool == kvp ]]; then
        commands+=("$start --version" "$start list --dir $work/pools")
      else
        commands+=("$start --version")
      fi
    done
  done
done
hyperfine -N -w 3 -r "$runs" --export-markdown "$work/startup.md" "${commands[@]}" > /dev/null
sed -E "s|$work|WORK|g; s|@$here/bin/lib/jvm/[a-z]+\\.options ||g" "$work/startup.md"
# The checkout's launcher against the java command it execs (sh -x shows it), alternating.
"$here/bin/kvp" --version > /dev/null
direct=$(sh -x "$here/bin/kvp" --version 2>&1 >/dev/null | sed -n 's/^+ exec //p' | tail -1)
echo "== the checkout's launcher (bin/kvp --version) against its own exec: $direct"
hyperfine -N -w 3 -r "$runs" --export-markdown "$work/launcher.md" \
  "$here/bin/kvp --version" "$direct" > /dev/null
sed -E "s|$here|REPO|g" "$work/launcher.md"
echo "processes bin/kvp starts before java (strace -f, execve):"
strace -f -qq -e trace=execve -o "$work/trace" "$here/bin/kvp" --version > /dev/null
grep -o 'execve("[^"]*"' "$work/trace" | sed 's/execve(//'
# The package's launcher alone: /usr/bin/kvp's three lines with a no-op "java" (a copy of true),
# its stamps made for it, so that the launcher takes its usual path and execs at once.
mkdir -p "$work/noop/bin"
cp "$(type -P true)" "$work/noop/bin/java"
launchers=()
for rev in ${before:+"$before"} HEAD; do
  mkdir -p "$work/launcher-$rev/cache/jna"
  if [[ $rev == HEAD ]]; then lib=$here/bin/lib; else
    git -C "$here" archive "$rev" bin | tar -x -C "$work/launcher-$rev"
    lib=$work/launcher-$rev/bin/lib
  fi
  # shellcheck disable=SC2016 # $lib: the launcher's own, at its run
  printf '%s\n' '#!/bin/sh' "lib=$lib" "jna_native=$work/deb$n/usr/lib/kvprov" '. "$lib/launch.sh"' \
    "launch kvp $work/deb$n/usr/share/kvprov/kvp.jar $work/launcher-$rev/cache/kvp - \"\$@\"" \
    > "$work/launcher-$rev/kvp"
  chmod +x "$work/launcher-$rev/kvp"
  # shellcheck disable=SC2016 # expanded by the sh below
  PATH=$work/noop/bin:$PATH sh -c '. "$1/launch.sh"; launch_archive "$2" - "$3" "$4"' - "$lib" \
    "$work/deb$n/usr/share/kvprov/kvp.jar" "$work/launcher-$rev/cache/kvp" "$work/noop/bin/java" \
    > /dev/null 2>&1 || true
  launchers+=("$work/launcher-$rev/kvp --version")
done
echo "== the package's launcher alone (a no-op java; as $(id -un))"
PATH=$work/noop/bin:$PATH hyperfine -N -w 20 -r $((runs * 15)) --export-markdown "$work/alone.md" \
  "${launchers[@]}" "$work/noop/bin/java --version" > /dev/null
sed -E "s|$work|WORK|g" "$work/alone.md"
echo "load: $(cat /proc/loadavg)"
