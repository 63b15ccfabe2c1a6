#!/usr/bin/env bash
# How the timeline page was looked at: two demo boots on one disk (a failed one archived, a good
# one live), the page for both, and a screenshot by headless Chromium (Debian's chromium package).
# On a busy machine Chromium may shoot before it has painted the table: it is told to wait.
#
#   bench/timeline-screenshot.sh [OUT.png]      default: /tmp/kvp-timeline.png
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-/tmp/kvp-timeline.png}
work=$(mktemp -d "${TMPDIR:-/tmp}/kvp-screenshot.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$here/bin/kvprov" demo --scenario imds-down-no-media --dir "$work/failed" > /dev/null 2>&1 || true
"$here/bin/kvprov" demo --scenario flaky-imds --dir "$work/good" > /dev/null 2>&1
disk=$work/disk
mkdir -p "$disk/var/lib/kvprov/kvp-archive" "$disk/var/lib/hyperv"
cp "$work/failed/root/var/lib/hyperv/.kvp_pool_1" "$disk/var/lib/kvprov/kvp-archive/pool1-1795599000.kvp"
cp "$work/good/root/var/lib/hyperv/.kvp_pool_1" "$disk/var/lib/hyperv/.kvp_pool_1"
"$here/bin/kvp" timeline --root "$disk" --html "$work/page.html"
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --run-all-compositor-stages-before-draw --virtual-time-budget=5000 \
  --user-data-dir="$work/profile" --window-size=1280,1400 --screenshot="$out" \
  "file://$work/page.html" 2> /dev/null
echo "wrote $out"
