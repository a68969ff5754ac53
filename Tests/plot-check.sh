#!/usr/bin/env bash
# `stack --plot` opened in a real browser: headless chromium screenshots the
# SVG and an empty page of the same size; the plot must be valid XML, hold
# one point per frame in each panel, and its screenshot must differ from the
# empty page's (PSNR measured by `stack compare`, below 30 dB).
# Usage: Tests/plot-check.sh BIN_DIR   (the folder holding stack and make-scene)
set -euo pipefail
bin="$1"
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "plot-check: chromium is missing (apt-get install chromium)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin/make-scene" --preset street --frames 6 --width 128 --height 96 --output "$work/scene" >/dev/null
"$bin/stack" -q --keep 4 --plot "$work/plot.svg" -o "$work/out.png" "$work/scene"/frame_*.jpg
xmllint --noout "$work/plot.svg"
points=$(grep -c 'class="point"' "$work/plot.svg")
panels=$(grep -c 'class="panel"' "$work/plot.svg")
[ "$points" -eq $((6 * panels)) ] || { echo "plot-check: $points points in $panels panels, expected 6 per panel"; exit 1; }
size=$(sed -n 's/.*<svg [^>]*width="\([0-9.]*\)" height="\([0-9.]*\)".*/\1,\2/p' "$work/plot.svg" | head -1)
w=${size%,*}; h=${size#*,}; w=${w%.*}; h=${h%.*}
printf '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s"><rect width="100%%" height="100%%" fill="white"/></svg>\n' "$w" "$h" > "$work/empty.svg"
shoot() {
    "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size="$w,$h" \
        --screenshot="$2" "file://$1" >/dev/null 2>&1
    [ -s "$2" ] || { echo "plot-check: chromium wrote no screenshot of $1"; exit 1; }
}
shoot "$work/plot.svg" "$work/plot.png"
shoot "$work/empty.svg" "$work/empty.png"
psnr=$("$bin/stack" compare "$work/plot.png" --truth "$work/empty.png" --json | sed -n 's/.*"psnrRGB": \([^,]*\),.*/\1/p')
echo "plot-check: ${points} points in ${panels} panels; screenshot vs empty page: PSNR ${psnr} dB"
awk -v p="$psnr" 'BEGIN { exit !(p != "null" && p < 30) }' || { echo "plot-check: the browser drew nothing of the plot"; exit 1; }
