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
echo "== dpkg --status"
dpkg --root="$root" --status kvprov | grep -E '^(Status|Version|Conffiles)' -A1
echo "== files"
stat -c '%a %n' "$root/var/lib/kvprov" "$root/var/cache/kvprov" "$root/etc/kvprov/kvprov.toml"
ls "$root/var/cache/kvprov"
echo "== systemctl enabled"
readlink "$root/etc/systemd/system/multi-user.target.wants/kvprov.service" || echo "(not enabled)"
echo "== kvprov --version"
chroot "$root" kvprov --version
echo "== kvp --help"
chroot "$root" kvp --help
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
