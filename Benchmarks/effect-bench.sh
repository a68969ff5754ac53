#!/bin/sh
# One-core time of `stack effect` per 12 MP photo (issue 29): the iPhone
# portrait HEIC of Tests/Fixtures/real (4032 x 3024, 768 x 576 disparity),
# `mask` and `blur`, three runs each, decode and TIFF write included; prints
# the median of each. Usage: effect-bench.sh BIN_DIR
set -eu
bin=$1
photo=$(dirname "$0")/../Tests/Fixtures/real/pillow-heif-portrait-depth.heic
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pin=""
command -v taskset >/dev/null && pin="taskset -c 0"
for effect in mask blur; do
  times=""
  for run in 1 2 3; do
    start=$(date +%s%N)
    $pin "$bin/stack" effect "$effect" --threads 1 -q -o "$work/out.tif" "$photo"
    end=$(date +%s%N)
    times="$times $(( (end - start) / 1000000 ))"
  done
  median=$(printf '%s\n' $times | sort -n | sed -n 2p)
  echo "effect $effect, 12 MP, one core: median ${median} ms (runs:$times ms)"
done
