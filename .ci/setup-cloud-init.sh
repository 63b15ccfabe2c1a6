#!/usr/bin/env bash
# Unpacks Debian 12's cloud-init (and the Python packages its KVP handler imports) into a private
# directory, without installing anything system-wide. The interop tests drive cloud-init's real
# Hyper-V KVP handler from there with Debian's /usr/bin/python3.
#
# Usage: .ci/setup-cloud-init.sh [DIR]   (default: $HOME/.cache/kvprov/cloud-init)
# Idempotent: a DIR that already holds the handler is left as it is.
set -euo pipefail

dir=${1:-${KVPROV_CLOUDINIT_ROOT:-$HOME/.cache/kvprov/cloud-init}}
handler="$dir/usr/lib/python3/dist-packages/cloudinit/reporting/handlers.py"
if [[ -f "$handler" ]]; then
  echo "cloud-init already unpacked in $dir"
  exit 0
fi

packages=(cloud-init python3-requests python3-urllib3 python3-idna python3-certifi
  python3-charset-normalizer python3-chardet python3-configobj python3-jinja2 python3-markupsafe
  python3-jsonpatch python3-json-pointer python3-jsonschema python3-netifaces python3-serial
  python3-attr python3-pyrsistent python3-yaml python3-oauthlib)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
if ! apt-get download "${packages[@]}" >/dev/null 2>&1; then
  # The package lists may be missing or stale on a new machine.
  apt-get update -qq
  apt-get download "${packages[@]}" >/dev/null
fi
mkdir -p "$work/root"
for deb in ./*.deb; do dpkg -x "$deb" "$work/root"; done
mkdir -p "$(dirname "$dir")"
rm -rf "$dir"
mv "$work/root" "$dir"
echo "cloud-init $(dpkg-deb -f "$work"/cloud-init_*.deb Version) unpacked in $dir"
