#!/usr/bin/env bash
# The HTML report in a real browser: headless Chromium loads the report of
# the paper's NMT on k80x4 (expert and m-ETF placements) and of the paper
# suite, dumps the DOM it built and takes a screenshot; the DOM must hold the
# report's lanes and table rows, and the screenshot must be a real picture.
# Usage: report_browser_test.sh DEVPLACE [SCREENSHOT_OUT]
#   SCREENSHOT_OUT: also copy the NMT screenshot there (docs/report_nmt_k80x4.png).
set -euo pipefail
devplace=$1
keep=${2:-}
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "report_browser_test: chromium not found (scripts/setup.sh installs it)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "report_browser_test: $*" >&2; exit 1; }
chrome() {
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --user-data-dir="$work/profile" --hide-scrollbars "$@" 2>>"$work/chromium.log"
}

"$devplace" report --graph zoo:nmt --cluster k80x4 --placement expert,m-etf --out "$work/nmt.html" 2>/dev/null
chrome --dump-dom "file://$work/nmt.html" >"$work/nmt.dom" || fail "chromium could not load the report: $(tail -3 "$work/chromium.log")"
lanes=$(grep -o '<g class="lane device"' "$work/nmt.dom" | wc -l)
links=$(grep -o '<g class="lane link"' "$work/nmt.dom" | wc -l)
rows=$(grep -o '<tr class="method-row' "$work/nmt.dom" | wc -l)
devices=$(grep -o '<tr class="device-row"' "$work/nmt.dom" | wc -l)
[ "$lanes" -eq 10 ] || fail "expected 10 device lanes (2 timelines x 5 devices), the browser built $lanes"
[ "$links" -ge 2 ] || fail "expected link lanes with transfers, the browser built $links"
nmt_rows=$rows
[ "$rows" -eq 2 ] || fail "expected 2 placement rows, the browser built $rows"
[ "$devices" -eq 10 ] || fail "expected 10 per-device rows, the browser built $devices"
grep -q '</html>' "$work/nmt.dom" || fail "the DOM dump is incomplete"

chrome --screenshot="$work/nmt.png" --window-size=1240,1400 "file://$work/nmt.html" >/dev/null \
  || fail "no screenshot: $(tail -3 "$work/chromium.log")"
[ -s "$work/nmt.png" ] || fail "empty screenshot"
# PNG signature, then the IHDR width and height (big-endian at bytes 16..23).
[ "$(head -c 8 "$work/nmt.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "the screenshot is not a PNG"
width=$((16#$(od -An -tx1 -j16 -N4 "$work/nmt.png" | tr -d ' \n')))
height=$((16#$(od -An -tx1 -j20 -N4 "$work/nmt.png" | tr -d ' \n')))
[ "$width" -eq 1240 ] && [ "$height" -eq 1400 ] || fail "screenshot is ${width}x$height, expected 1240x1400"
# A blank page compresses to a few KB; the timeline's bars do not.
size=$(stat -c %s "$work/nmt.png")
[ "$size" -gt 40000 ] || fail "the screenshot is only $size bytes: the page looks empty"
[ -z "$keep" ] || cp "$work/nmt.png" "$keep"

# The paper suite: one report, a section per row of Table 1.
"$devplace" compare --suite paper --methods single-gpu,expert,m-etf --report "$work/paper.html" >/dev/null 2>&1
chrome --dump-dom "file://$work/paper.html" >"$work/paper.dom" || fail "chromium could not load the suite report"
sections=$(grep -o '<section class="problem"' "$work/paper.dom" | wc -l)
rows=$(grep -o '<tr class="method-row' "$work/paper.dom" | wc -l)
[ "$sections" -eq 6 ] || fail "expected the 6 rows of Table 1 as sections, got $sections"
[ "$rows" -eq 18 ] || fail "expected 18 placement rows (6 x 3 methods), got $rows"
echo "report_browser_test: NMT report: $lanes device lanes, $links link lanes, $nmt_rows rows; screenshot ${width}x$height, $size bytes; suite: $sections sections"
