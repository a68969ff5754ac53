#!/usr/bin/env bash
# Siril's side of the bench's astro case: the same job as
#   stack --align stars --mode sigma-clip --normalize additive \
#         --bias bias --dark darks --flat flats -o OUT lights/*
# on a session written by `make-scene --preset stars` (or the bench's StarField
# session): master bias / dark / flat, calibration, global star registration
# onto frame 0, κ 3/3 rejection stacking with additive normalisation.
#
#   siril_astro.sh SESSION OUTPUT.tif|OUTPUT.png [--work DIR] [--keep] [--threads N]
#                  [--rejection ALG [--low L] [--high H]]
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
#   `--rejection ALG` picks another of Siril 1.0's `stack … rej LETTER LOW HIGH`
#   algorithms (src/stacking/rejection_float.c, tag 1.0.6):
#     percentile p  one pass, reject x < median − LOW·median or x > median + HIGH·median
#     sigma      s  iterated, κ·(standard deviation) around the median
#     mad        a  iterated, κ·MAD around the median, the MAD NOT scaled by 1.4826
#     winsorized w  iterated, κ·σ, σ = 1.134·sd of samples winsorized at median ± 1.5σ
#     linear     l  iterated, κ·(mean |residual|) around a line fitted to the sorted samples
#     gesd       g  generalized ESD: LOW = largest outlier fraction, HIGH = significance
#   LOW and HIGH are passed to Siril as they are (defaults: 0.2 0.1 for
#   percentile, 0.3 0.05 for gesd, 3 3 otherwise); the caller converts κ
#   between spread estimators. Siril leaves samples equal to 0 (uncovered
#   borders) out of every algorithm and stops rejecting when 4 samples remain.
# - `-norm=add` (additive, Siril's own location estimator), no -output_norm,
#   so the stack keeps the reference frame's level;
# - registration `-transf=similarity` (the sessions have rotation + shift);
#   `setfindstar 0.5 0.7` (threshold 0.5σ, roundness ≥ 0.7): with the 1.0
#   defaults (1σ, 0.5) Siril found ~12 stars per 1 MP frame and dropped the
#   satellite-trail frame ("Cannot perform star matching").
#
# stdout: one JSON line last: {"siril_s": wall seconds of siril-cli alone,
# "stack_s": Siril's own time for the light stack alone (null if not logged),
# "rejection": "LETTER LOW HIGH",
# "siril_reported_s": Siril's own "Total execution time", "lights": frames given,
# "stacked": frames Siril stacked, "work": scratch folder}. Siril's log goes to
# WORK/siril.log; its tail is printed on failure.
# Exit status: 0 done; 1 Siril failed; 2 usage; 3 siril-cli is not installed.
set -euo pipefail

usage() { echo "usage: siril_astro.sh SESSION OUTPUT.tif|OUTPUT.png [--work DIR] [--keep] [--threads N]" >&2; exit 2; }
[ $# -ge 2 ] || usage
session=$(realpath "$1"); output=$(realpath -m "$2"); shift 2
work="" keep=0 threads=$(nproc) rejection=mad low="" high=""
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || [ "$1" = --keep ] || usage
  case "$1" in
    --work) work=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --threads) threads=$2; shift 2 ;;
    --rejection) rejection=$2; shift 2 ;;
    --low) low=$2; shift 2 ;;
    --high) high=$2; shift 2 ;;
    *) usage ;;
  esac
done
case "$rejection" in
  percentile) letter=p defaults="0.2 0.1" ;;
  sigma) letter=s defaults="3 3" ;;
  mad) letter=a defaults="3 3" ;;
  winsorized) letter=w defaults="3 3" ;;
  linear|linear-fit) letter=l defaults="3 3" ;;
  gesd) letter=g defaults="0.3 0.05" ;;
  *) echo "siril_astro: error: --rejection $rejection: not one of percentile, sigma, mad, winsorized, linear, gesd" >&2; exit 2 ;;
esac
low=${low:-${defaults% *}} high=${high:-${defaults#* }}
for v in "$low" "$high"; do
  [[ "$v" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "siril_astro: error: --low/--high: '$v' is not a number ≥ 0" >&2; exit 2; }
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
stack r_pp_light rej $letter $low $high -norm=add -out=result

load result
$save "$result"
close
EOF

# Siril 1.0.6 sometimes aborts with a glibc heap error ("malloc(): …",
# "corrupted …", status 134): such a run starts again from an empty process
# folder, up to 3 attempts; the time is that of the attempt that finished.
attempt=0
while :; do
  attempt=$((attempt + 1))
  rm -rf "$proc"; mkdir -p "$proc"; rm -f "$output"
  start=$(date +%s.%N)
  status=0
  (cd "$work" && "$siril" -s astro.ssf) > "$work/siril.log" 2>&1 || status=$?
  end=$(date +%s.%N)
  if [ "$status" = 0 ] && grep -q "Script execution finished successfully" "$work/siril.log" && [ -s "$output" ]; then break; fi
  if [ "$attempt" -lt 3 ] && { [ "$status" -ge 128 ] || grep -q -E 'malloc|corrupted|double free' "$work/siril.log"; }; then
    echo "siril_astro: siril-cli crashed (status $status, attempt $attempt of 3); running it again" >&2
    continue
  fi
  echo "siril_astro: error: siril-cli failed (status $status, attempt $attempt); last lines of $work/siril.log:" >&2
  grep -v '^progress' "$work/siril.log" | tail -20 >&2
  trap - EXIT
  exit 1
done
reported=$(grep -o 'Total execution time: [0-9.]* [a-z]*' "$work/siril.log" | tail -1 | awk '{print ($5 == "ms" ? $4 / 1000 : ($5 == "min" ? $4 * 60 : $4))}')
stacked=$(grep -o '[0-9]* images have been stacked' "$work/siril.log" | tail -1 | awk '{print $1}')
# The light stack's own time: the first "Execution time" after the last
# "… stacking complete" (the lights are stacked last).
stack_s=$(awk '/stacking complete/ { f = 1 } f && /Execution time:/ { t = ($5 == "ms." ? $4 / 1000 : ($5 == "min" ? $4 * 60 + $6 : $4)); f = 0 }
  END { if (t != "") print t }' "$work/siril.log")
printf '{"siril_s": %.3f, "siril_reported_s": %s, "stack_s": %s, "rejection": "%s %s %s", "attempts": %d, "lights": %d, "stacked": %s, "work": "%s"}\n' \
  "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" "${reported:-null}" "${stack_s:-null}" "$letter" "$low" "$high" \
  "$attempt" "$lights" "${stacked:-null}" "$work"
