#!/usr/bin/env bash
# Output bytes of a build, one md5 per case, for checking that a change which
# should not alter results (a refactor, a comment pass, a new wrapper) does
# not. Run it with the build before the change and the build after, then
# compare the two manifests:
#
#   make release && cp -r "$(swift build -c release --show-bin-path)" /tmp/before
#   Tests/byte-identity.sh /tmp/before /tmp/before.md5
#   … change, make release …
#   Tests/byte-identity.sh "$(swift build -c release --show-bin-path)" /tmp/after.md5
#   diff /tmp/before.md5 /tmp/after.md5 && echo identical
#
# Compare builds made with the same CPU_FLAGS: without fused multiply-adds a
# resampled value may differ in its last bit (see the Makefile).
#
# Cases: the generated bursts themselves (so a changed generator shows up
# apart from a changed stacker); a 1024×768 JPEG street burst stacked with
# every --mode × --align translation|homography|none; the stars preset (16-bit
# PNG) stacked with every --mode × --align stars|stars-affine, and once more
# with its bias, dark and flat frames. Each case writes an 8-bit JPEG and a
# 32-bit float FITS.
#
# Usage: Tests/byte-identity.sh BIN_DIR OUT_MANIFEST
#   BIN_DIR       folder holding the stack and make-scene binaries
#   OUT_MANIFEST  file to write, one "md5  case" line per case (also printed)
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 BIN_DIR OUT_MANIFEST" >&2
  exit 2
fi
stack="$1/stack"
scene="$1/make-scene"
manifest="$2"
for b in "$stack" "$scene"; do
  [ -x "$b" ] || { echo "byte-identity: $b not built" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/stack-byte-identity.XXXXXX")
trap 'rm -rf "$work"' EXIT
: > "$work/manifest"

# record NAME FILE: append FILE's md5 under the case name NAME.
record() {
  echo "$(md5sum < "$2" | cut -d' ' -f1)  $1" >> "$work/manifest"
}

# stack_case NAME STACK-ARGS...: one run per output kind, each recorded.
stack_case() {
  local name="$1"; shift
  "$stack" -q --output "$work/out.jpg" "$@"
  record "$name.jpg" "$work/out.jpg"
  "$stack" -q --depth 32f --output "$work/out.fits" "$@"
  record "$name.fits" "$work/out.fits"
  rm -f "$work/out.jpg" "$work/out.fits"
}

"$scene" --preset street --width 1024 --height 768 --frames 6 --seed 5 \
  --quality 85 --output "$work/street" >/dev/null
"$scene" --preset stars --width 640 --height 480 --frames 6 --seed 5 \
  --calibration-frames 4 --output "$work/stars" >/dev/null

for f in "$work"/street/frame_*.jpg "$work"/stars/lights/*; do
  record "input/${f#"$work"/}" "$f"
done

street=("$work"/street/frame_*.jpg)
lights=("$work"/stars/lights/*)
for mode in average median sigma-clip mode; do
  for align in translation homography none; do
    stack_case "street/$mode/$align" --mode "$mode" --align "$align" "${street[@]}"
  done
  for align in stars stars-affine; do
    stack_case "stars/$mode/$align" --mode "$mode" --align "$align" "${lights[@]}"
  done
  stack_case "stars/$mode/stars+calibration" --mode "$mode" --align stars \
    --bias "$work/stars/bias" --dark "$work/stars/darks" --flat "$work/stars/flats" \
    "${lights[@]}"
done

cp "$work/manifest" "$manifest"
cat "$manifest"
