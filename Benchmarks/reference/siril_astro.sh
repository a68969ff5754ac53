#!/usr/bin/env bash
# Siril's side of the bench's astro case: the same job as
#   stack --align stars --mode sigma-clip --normalize additive \
#         --bias bias --dark darks --flat flats -o OUT lights/*
# on a session written by `make-scene --preset stars` (or the bench's StarField
# session): master bias / dark / flat, calibration, global star registration
# onto frame 0, κ 3/3 rejection stacking with additive normalisation.
#
#   siril_astro.sh SESSION OUTPUT.tif|OUTPUT.png [--work DIR] [--keep] [--threads N]
#
# SESSION holds bias/, darks/, flats/ and lights/ (16-bit FITS as the bench
# writes them, or 16-bit PNG; Siril 1.0 reads both natively, so no conversion
# step is needed outside Siril). The result is written by
# Siril itself as a 16-bit TIFF (savetif) or PNG (savepng) in our orientation
# (rows top-down, like the inputs: Siril keeps FITS bottom-up internally and
# flips back on export) and our scale (Siril's 32-bit float 0…1 × 65535), on
# the reference frame's grid (same size; uncovered borders are 0).
#
# Conventions that differ from `stack` (see "Astro case with Siril" in
# docs/history/performance-journal.md):
# - the master flat is normalised by the mean of its central third
#   (w/3 × h/3 box), not its global mean: Siril's output is brighter by
#   centre-mean / global-mean (≈ 1.12 with the StarField vignetting);
# - rejection is Siril's k-MAD clipping (`rej a 3 3`: around the median with a MAD-based spread,
#   the closest to our 1.4826·MAD sigma-clip; `rej s` would use the std dev);
# - `-norm=add` (additive, Siril's own location estimator), no -output_norm,
#   so the stack keeps the reference frame's level;
# - registration `-transf=similarity` (the sessions have rotation + shift);
#   `setfindstar 0.5 0.7` (threshold 0.5σ, roundness ≥ 0.7): with the 1.0
#   defaults (1σ, 0.5) Siril found ~12 stars per 1 MP frame and dropped the
#   satellite-trail frame ("Cannot perform star matching").
#
# stdout: one JSON line last: {"siril_s": wall seconds of siril-cli alone,
# "siril_reported_s": Siril's own "Total execution time", "lights": frames given,
# "stacked": frames Siril stacked, "work": scratch folder}. Siril's log goes to
# WORK/siril.log; its tail is printed on failure.
# Exit status: 0 done; 1 Siril failed; 2 usage; 3 siril-cli is not installed.
set -euo pipefail

usage() { echo "usage: siril_astro.sh SESSION OUTPUT.tif|OUTPUT.png [--work DIR] [--keep] [--threads N]" >&2; exit 2; }
[ $# -ge 2 ] || usage
session=$(realpath "$1"); output=$(realpath -m "$2"); shift 2
work="" keep=0 threads=$(nproc)
while [ $# -gt 0 ]; do
  case "$1" in
    --work) work=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --threads) threads=$2; shift 2 ;;
    *) usage ;;
  esac
done

siril=$(command -v siril-cli || true)
if [ -z "$siril" ]; then
  echo "siril_astro: error: siril-cli not found; install Siril (Debian: apt-get install -y siril)" >&2
  exit 3
fi
for d in bias darks flats lights; do
  [ -d "$session/$d" ] || { echo "siril_astro: error: $session/$d: no such folder (not a stars session?)" >&2; exit 2; }
done
case "$output" in
  *.tif|*.tiff) save="savetif" ;;
  *.png) save="savepng" ;;
  *) echo "siril_astro: error: $output: the output must end in .tif or .png" >&2; exit 2 ;;
esac

if [ -z "$work" ]; then work=$(mktemp -d "$(dirname "$output")/siril-work.XXXXXX"); else rm -rf "$work"; mkdir -p "$work"; fi
work=$(realpath "$work")
proc="$work/process"
mkdir -p "$proc"
[ "$keep" = 1 ] || trap 'rm -rf "$work"' EXIT
lights=$(find "$session/lights" -maxdepth 1 -name 'light_*' | wc -l)
result="${output%.*}"

# Siril's `convert` takes every image of the current folder, sorted by name
# (light_000 … stays frame order, so frame 0 is the registration reference).
cat > "$work/astro.ssf" <<EOF
requires 1.0.0
setcpu $threads
setfindstar 0.5 0.7

cd "$session/bias"
convert bias "-out=$proc"
cd "$proc"
stack bias rej 3 3 -nonorm -out=master_bias

cd "$session/flats"
convert flat "-out=$proc"
cd "$proc"
preprocess flat -bias=master_bias
stack pp_flat rej 3 3 -norm=mul -out=master_flat

cd "$session/darks"
convert dark "-out=$proc"
cd "$proc"
stack dark rej 3 3 -nonorm -out=master_dark

cd "$session/lights"
convert light "-out=$proc"
cd "$proc"
preprocess light -dark=master_dark -flat=master_flat
register pp_light -transf=similarity
stack r_pp_light rej a 3 3 -norm=add -out=result

load result
$save "$result"
close
EOF

start=$(date +%s.%N)
status=0
(cd "$work" && "$siril" -s astro.ssf) > "$work/siril.log" 2>&1 || status=$?
end=$(date +%s.%N)
if [ "$status" != 0 ] || ! grep -q "Script execution finished successfully" "$work/siril.log" || [ ! -s "$output" ]; then
  echo "siril_astro: error: siril-cli failed (status $status); last lines of $work/siril.log:" >&2
  grep -v '^progress' "$work/siril.log" | tail -20 >&2
  trap - EXIT
  exit 1
fi
reported=$(grep -o 'Total execution time: [0-9.]* [a-z]*' "$work/siril.log" | tail -1 | awk '{print ($5 == "ms" ? $4 / 1000 : ($5 == "min" ? $4 * 60 : $4))}')
stacked=$(grep -o '[0-9]* images have been stacked' "$work/siril.log" | tail -1 | awk '{print $1}')
printf '{"siril_s": %.3f, "siril_reported_s": %s, "lights": %d, "stacked": %s, "work": "%s"}\n' \
  "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" "${reported:-null}" "$lights" "${stacked:-null}" "$work"
