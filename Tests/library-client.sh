#!/usr/bin/env bash
# The README's library example, kept honest (make test calls this):
#   1. the Package.swift and main.swift shown in README.md are the files in
#      Examples/LibraryClient, byte for byte;
#   2. that package builds against this one (by path) and runs: it writes
#      clean.jpg and prints its PSNR and ghost residual against the truth,
#      which must show the objects removed.
# Usage: Tests/library-client.sh [SCRATCH_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="${1:-.build/library-client}"
client=Examples/LibraryClient

for name in Package.swift main.swift; do
  file="$client/Package.swift"
  [ "$name" = main.swift ] && file="$client/Sources/LibraryClient/main.swift"
  # The fenced block after the README's marker for this file.
  shown=$(awk -v marker="<!-- library-client: $name -->" '
    $0 == marker { found = 1; next }
    found && /^```swift$/ { inside = 1; next }
    inside && /^```$/ { exit }
    inside { print }' README.md)
  if [ "$shown" != "$(cat "$file")" ]; then
    echo "library-client: FAIL: README.md does not show $file as it is" >&2
    exit 1
  fi
done
echo "library-client: README.md shows Package.swift and main.swift as they are"

swift build --package-path "$client" --scratch-path "$scratch"
bin="$(swift build --package-path "$client" --scratch-path "$scratch" --show-bin-path)/LibraryClient"
work=$(mktemp -d "${TMPDIR:-/tmp}/stack-library-client.XXXXXX")
trap 'rm -rf "$work"' EXIT
line=$(cd "$work" && "$bin")
echo "library-client: $line"
[ -s "$work/clean.jpg" ] || { echo "library-client: FAIL: no clean.jpg written" >&2; exit 1; }
python3 - "$line" <<'PY'
import re, sys
m = re.match(r"PSNR ([0-9.]+) dB against the truth; ghost residual ([0-9.e-]+) where objects passed", sys.argv[1])
if not m:
    sys.exit(f"library-client: FAIL: unexpected output {sys.argv[1]!r}")
psnr, ghost = float(m.group(1)), float(m.group(2))
# On this scene one frame scores 24.7 dB (ghost residual 0.038, the objects
# themselves) and the average of the nine 34.2 dB (0.028: ghosts); the median
# removes the passers-by: 47.1 dB, 0.004.
if psnr < 42 or ghost > 0.01:
    sys.exit(f"library-client: FAIL: PSNR {psnr} dB, ghost residual {ghost}")
print(f"library-client: PSNR {psnr:.2f} dB >= 42, ghost residual {ghost:.4f} <= 0.01")
PY
