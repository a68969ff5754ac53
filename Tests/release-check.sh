#!/usr/bin/env bash
# The release build users run, checked end to end (make release-check; CI runs it right after make test).
#
# The Swift suites run a debug build, which compiles the resampling sums
# without fused multiply-adds (TapSum.swift, FUSED_MULTIPLY_ADD); the release
# build of an AVX2/AVX-512 machine compiles them with. This script stacks a
# generated 3 MP burst with the release binary and checks, for every mode:
#   1. --threads 1 and --threads 2 write byte-identical JPEGs;
#   2. the report's shifts match the generator's truth within 0.1 px;
#   3. the release build's 32-bit float FITS output matches the debug build's
#      (same frames, same options) to rounding: PSNR ≥ 60 dB between the two;
#   4. it reads back the PNG, TIFF, FITS and HEIC files it writes.
#
# Usage: Tests/release-check.sh RELEASE_BIN_DIR DEBUG_BIN_DIR
set -euo pipefail

release="$1/stack"
debug="$2/stack"
scene="$1/make-scene"
for b in "$release" "$debug" "$scene"; do
  [ -x "$b" ] || { echo "release-check: $b not built" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/stack-release-check.XXXXXX")
trap 'rm -rf "$work"' EXIT

# 4:2:0 chroma at quality 85: the robust modes take the Y, Cb, Cr path.
"$scene" --preset street --width 2048 --height 1536 --frames 8 --seed 5 \
  --quality 85 --output "$work/burst" >/dev/null
frames=("$work"/burst/frame_*.jpg)

failures=0
fail() { echo "release-check: FAIL: $*" >&2; failures=$((failures + 1)); }

for mode in average median sigma-clip mode; do
  "$release" -q --mode "$mode" --threads 1 --output "$work/$mode-1.jpg" --report "$work/$mode.json" "${frames[@]}"
  "$release" -q --mode "$mode" --threads 2 --output "$work/$mode-2.jpg" "${frames[@]}"
  if cmp -s "$work/$mode-1.jpg" "$work/$mode-2.jpg"; then
    echo "release-check: $mode: --threads 1 and --threads 2 outputs identical"
  else
    fail "$mode: --threads 1 and --threads 2 outputs differ"
  fi

  python3 - "$work/$mode.json" "$work/burst/truth.json" "$mode" <<'EOF' || failures=$((failures + 1))
import json, sys
report, truth, mode = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
worst = max(max(abs(f["dx"] - t["dx"]), abs(f["dy"] - t["dy"]))
            for f, t in zip(report["frames"], truth["frames"]))
if len(report["frames"]) != len(truth["frames"]) or worst >= 0.1:
    print(f"release-check: FAIL: {mode}: shift error {worst:.4f} px (limit 0.1)", file=sys.stderr)
    sys.exit(1)
print(f"release-check: {mode}: worst shift error {worst:.4f} px")
EOF

  "$release" -q --mode "$mode" --depth 32f --output "$work/$mode-release.fits" "${frames[@]}"
  "$debug" -q --mode "$mode" --depth 32f --output "$work/$mode-debug.fits" "${frames[@]}"
  python3 - "$work/$mode-release.fits" "$work/$mode-debug.fits" "$mode" <<'EOF' || failures=$((failures + 1))
import math, struct, sys

def fits_floats(path):
    """The samples of a BITPIX = -32 FITS primary array (big-endian floats)."""
    data = open(path, "rb").read()
    cards, offset = {}, 0
    while True:
        card = data[offset:offset + 80].decode("ascii")
        offset += 80
        key = card[:8].strip()
        if key == "END":
            break
        if card[8:10] == "= ":
            cards[key] = card[10:].split("/")[0].strip()
    if int(cards["BITPIX"]) != -32:
        sys.exit(f"release-check: FAIL: {path}: BITPIX {cards['BITPIX']}, expected -32")
    count = 1
    for axis in range(1, int(cards["NAXIS"]) + 1):
        count *= int(cards[f"NAXIS{axis}"])
    start = (offset + 2879) // 2880 * 2880
    return struct.unpack(f">{count}f", data[start:start + 4 * count])

a, b, mode = fits_floats(sys.argv[1]), fits_floats(sys.argv[2]), sys.argv[3]
if len(a) != len(b):
    sys.exit(f"release-check: FAIL: {mode}: release and debug outputs differ in size")
squared = sum((x - y) * (x - y) for x, y in zip(a, b)) / len(a)
largest = max(abs(x - y) for x, y in zip(a, b))
psnr = math.inf if squared == 0 else 10 * math.log10(1 / squared)  # samples on 0…1
if psnr < 60:
    sys.exit(f"release-check: FAIL: {mode}: release vs debug PSNR {psnr:.1f} dB (limit 60), largest difference {largest:.2e}")
print(f"release-check: {mode}: release vs debug PSNR {psnr:.1f} dB, largest difference {largest:.2e}")
EOF
done

# 4. Every reader and writer in the optimised build: the release binary
# reads back what it wrote (an optimiser-only crash once hit every FITS read).
for ext in png tif fits heic; do
  if "$release" -q --mode median --output "$work/round-a.$ext" "${frames[@]:0:3}" &&
     "$release" -q --mode median --output "$work/round-b.$ext" "${frames[@]:3:3}" &&
     "$release" -q --mode average --output "$work/round-back-$ext.jpg" "$work/round-a.$ext" "$work/round-b.$ext"; then
    echo "release-check: .$ext written and read back by the release build"
  else
    fail ".$ext: the release build could not write or read it back"
  fi
done

if [ "$failures" -ne 0 ]; then
  echo "release-check: $failures check(s) failed" >&2
  exit 1
fi
echo "release-check: passed"
