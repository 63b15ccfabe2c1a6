#!/usr/bin/env bash
# Installs the kvprov package into a throw-away root and runs it there, without touching this
# system: the root borrows this machine's /usr through an overlay (every write lands in WORK)
# and a copy of its /etc, and lives in a private mount namespace. Needs root.
#   usage: install-in-throwaway-root.sh DEB WORK
# Prints "== step" headers, then each step's output; exits non-zero at the first failing step.
set -euo pipefail
deb=$(readlink -f "$1")
work=$(readlink -f "$2")
root="$work/root"
mkdir -p "$root"/{proc,dev,tmp,run,home,usr} "$root"/var/lib/dpkg/{info,updates,triggers} \
  "$work"/{upper,overlay-work}
chmod 1777 "$root/tmp"
touch "$root/var/lib/dpkg/status"
# merged /usr: /bin, /lib... are links into /usr here too
for link in bin sbin lib lib64 lib32 libx32; do
  if [[ -L "/$link" ]]; then ln -s "$(readlink "/$link")" "$root/$link"; fi
done
cp -a /etc "$root/etc"
rm -rf "$root/etc/kvprov" "$root/etc/systemd/system/multi-user.target.wants/kvprov.service"

exec unshare --mount --propagation private bash -euo pipefail -s "$deb" "$root" "$work" <<'IN_NAMESPACE'
deb=$1 root=$2 work=$3
mount -t overlay overlay -o "lowerdir=/usr,upperdir=$work/upper,workdir=$work/overlay-work" \
  "$root/usr"
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"

echo "== dpkg --install"
# The package's dependencies are this machine's (borrowed /usr), not in the root's database.
dpkg --root="$root" --force-depends --install "$deb" 2>&1
echo "== left behind"
# what the postinst's JVM runs wrote outside the package's directories (root's home, /tmp)
find "$root/root" "$root/tmp" -mindepth 1 2>/dev/null || true
echo "== dpkg --status"
dpkg --root="$root" --status kvprov | grep -E '^(Status|Version|Conffiles)' -A1
echo "== files"
stat -c '%a %n' "$root/var/lib/kvprov" "$root/var/cache/kvprov" "$root/etc/kvprov/kvprov.toml"
ls "$root/var/cache/kvprov"
echo "== archives"
# what the postinst built, for which JVM; then that the launchers start with it, and that the JVM
# takes it (-Xshare:on fails rather than run without it) and loads our classes from it
cat "$root"/var/cache/kvprov/*.stamp
for tool in kvprov kvp; do
  chroot "$root" sh -x /usr/bin/$tool --version 2>&1 | grep -o -- '-XX:[A-Za-z]*=/var/cache/kvprov/[a-z.]*' || true
done
chroot "$root" java -Xshare:on -XX:SharedArchiveFile=/var/cache/kvprov/kvp.jsa -Xlog:class+load \
  -jar /usr/share/kvprov/kvp.jar --version | grep -c 'source: shared objects file (top)' || true
echo "== launcher with java alone on the PATH"
# The launchers exec java at once: with nothing but java on the PATH (no readlink, stat, id...)
# they still find their archive fresh and pass it, with JNA's library, and the tool runs.
mkdir -p "$root/opt/only-java"
ln -sf /usr/bin/java "$root/opt/only-java/java"
for tool in kvprov kvp; do
  chroot "$root" /usr/bin/env PATH=/opt/only-java /bin/sh -x /usr/bin/$tool --version 2>&1 \
    | grep -o -e 'not found' -e '^kvp[a-z]* [0-9.]*' \
      -e '-XX:[A-Za-z]*=/var/cache/kvprov/[a-z.]*' -e '-Djna.boot.library.path=[^ ]*' || true
done
echo "== aot"
# On JDK 25 and later the postinst builds an AOT cache instead: run its trigger with such a JVM
# first on the PATH (as when the default JVM becomes one), then switch back.
jdk25=$(ls -d /usr/lib/jvm/*-25-* /usr/lib/jvm/*-2[6-9]-* 2>/dev/null | head -1 || true)
if [[ -n "$jdk25" && -x "$jdk25/bin/java" ]]; then
  path25="$jdk25/bin:/usr/sbin:/usr/bin:/sbin:/bin"
  chroot "$root" env PATH="$path25" /var/lib/dpkg/info/kvprov.postinst triggered /usr/lib/jvm 2>&1
  ls "$root/var/cache/kvprov"
  cat "$root/var/cache/kvprov/kvp.stamp"
  chroot "$root" env PATH="$path25" sh -x /usr/bin/kvp --version 2>&1 | grep -o -- '-XX:AOTCache=[^ ]*' || true
  chroot "$root" env PATH="$path25" kvp --version
  echo "-- another JVM than the stamp's: no archive option"
  chroot "$root" sh -x /usr/bin/kvp --version 2>&1 | grep -c -- '-XX:AOTCache' || true
  chroot "$root" kvp --version
  chroot "$root" /var/lib/dpkg/info/kvprov.postinst triggered /usr/lib/jvm 2>&1
  cat "$root/var/cache/kvprov/kvp.stamp"
else
  echo "skipped: no JDK 25 or later in /usr/lib/jvm"
fi
echo "== systemctl enabled"
readlink "$root/etc/systemd/system/multi-user.target.wants/kvprov.service" || echo "(not enabled)"
echo "== kvprov --version"
chroot "$root" kvprov --version
echo "== kvp --help"
chroot "$root" kvp --help
echo "== runs leave nothing behind"
# Both tools, as root and as a user, on a live pool's name (the locked path, where JNA loads its
# native part): nothing new in /tmp, the homes or the package's directories (no JNA copy unpacked,
# no hsperfdata). The pool's directory is made first, and the homes (the JVM's user.home is the
# passwd entry's: _apt's (uid 42) /nonexistent, made here so that a write there would succeed).
mkdir -p "$root/srv/pools" "$root/nonexistent" "$root/root" "$root/var/tmp"
: > "$root/srv/pools/.kvp_pool_1"
chmod 0644 "$root/srv/pools/.kvp_pool_1"
chown 42:65534 "$root/nonexistent"
watched="tmp var/tmp root nonexistent var/cache/kvprov usr/share/kvprov usr/lib/kvprov srv"
snapshot() { (cd "$root" && find $watched -mindepth 1 | sort); }
snapshot > "$work/before-runs"
{
  chroot "$root" kvp list --dir /srv/pools
  chroot "$root" kvprov --version
  chroot "$root" kvprov config
  chroot --userspec=42:65534 "$root" env HOME=/nonexistent kvp list --dir /srv/pools
  chroot --userspec=42:65534 "$root" env HOME=/nonexistent kvprov --version
} > "$work/runs.log" 2>&1
snapshot | comm -13 "$work/before-runs" -
echo "== kvprov demo"
chroot "$root" kvprov demo --dir /tmp/demo 2>&1
echo "== kvp report"
chroot "$root" kvp report --root /tmp/demo/root || true
echo "== systemd-analyze verify"
if command -v systemd-analyze >/dev/null; then
  units=$(dpkg --root="$root" --listfiles kvprov | grep -E '^/lib/systemd/system/.*\.(service|socket|timer|path)$')
  # shellcheck disable=SC2086 # one argument per unit
  systemd-analyze verify --root="$root" $units 2>&1 && echo "verified"
else
  echo "skipped: no systemd-analyze on this machine"
fi
echo "== dpkg --purge"
dpkg --root="$root" --force-depends --purge kvprov 2>&1
ls -d "$root/var/lib/kvprov" "$root/var/cache/kvprov" 2>&1 || true
echo "== done"
IN_NAMESPACE
