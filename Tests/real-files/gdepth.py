#!/usr/bin/env python3
"""`stack effect`'s GDepth reading on a real Google Camera photo (issue 29).

    python3 Tests/real-files/gdepth.py [--cache DIR] [--timeout S]
    (make real-files; make real-files-heif runs the same check)

The photo is exiv2's `test/data/exiv2-bug922.jpg` (`apt-get source
--download-only exiv2`, fetched into the cache folder, default
`.build/real-files/`, with sweep.py's fetcher and reused by heif.py): a
Google Camera lens-blur JPEG whose depth map is a `RangeInverse` PNG in
extended XMP. `stack effect`'s high-pass masks at focus 0.3, 0.5 and 0.7
(slope 1000: a step) must equal the same thresholds of the map exiftool
extracts (`-DepthImage`), read as nearness 1 - dn stretched to 0..1 and
resized to the photo bilinearly: IoU >= 0.99 at each.

Exit status: 0 when every IoU is >= 0.99; 1 otherwise or when the file or
exiftool (libimage-exiftool-perl, in the Makefile's APT_PACKAGES) is
missing. Needs numpy and Pillow (pip).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sweep  # noqa: E402  (its fetchers and dependency installer)

REPO = Path(__file__).resolve().parents[2]
PHOTO = "exiv2/test/data/exiv2-bug922.jpg"
FOCUS_VALUES = (0.3, 0.5, 0.7)
MIN_IOU = 0.99


def photo_in(cache):
    """The photo under `cache/src`, or None when exiv2's source is not there."""
    path = Path(cache) / "src" / PHOTO
    return path if path.is_file() else None


def check(stack, photo, timeout):
    """One line of text: the IoU of `stack effect`'s mask against exiftool's
    map at each focus value, starting with `!` when one is below MIN_IOU
    or a mask was not written."""
    from PIL import Image
    import numpy as np
    with tempfile.TemporaryDirectory() as tmp:
        depth = subprocess.run(["exiftool", "-b", "-DepthImage", str(photo)], capture_output=True, timeout=timeout).stdout
        Path(tmp, "depth.png").write_bytes(depth)
        width, height = Image.open(photo).size
        dn = np.asarray(Image.open(Path(tmp, "depth.png")).convert("L").resize((width, height), Image.BILINEAR), float) / 255
        near = 1 - dn
        near = (near - near.min()) / (near.max() - near.min())
        ious = []
        for focus in FOCUS_VALUES:
            out = Path(tmp, "mask-%s.png" % focus)
            try:
                subprocess.run([stack, "effect", "--effect", "mask", "--mask", "high-pass", "--focus", str(focus),
                                "--slope", "1000", "-q", "-o", str(out), str(photo)],
                               cwd=tmp, capture_output=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                return "! gdepth: stack effect ran past %s s on %s" % (timeout, photo.name)
            if not out.exists():
                return "! gdepth: stack effect wrote no mask for %s" % photo.name
            ours = np.asarray(Image.open(out).convert("L"), float) / 255 > 0.5
            truth = near > focus
            ious.append((ours & truth).sum() / max(1, (ours | truth).sum()))
    mark = " " if min(ious) >= MIN_IOU else "!"
    return "%s gdepth: %s mask vs exiftool's DepthImage, IoU %s" % (
        mark, photo.name, " ".join("%.3f" % i for i in ious))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=Path, default=REPO / ".build" / "real-files")
    parser.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args()
    sweep.ensure_python_packages()
    if shutil.which("exiftool") is None:
        sys.exit("gdepth: exiftool missing: apt-get install libimage-exiftool-perl")
    stack = sweep.stack_binary("gdepth")
    cache = args.cache.resolve()
    if photo_in(cache) is None:
        for folder in ("downloads", "src"):
            (cache / folder).mkdir(parents=True, exist_ok=True)
        sweep.fetch_deb("exiv2", "exiv2", cache / "downloads", cache / "src")
    photo = photo_in(cache)
    if photo is None:
        sys.exit("gdepth: %s is not in exiv2's source" % PHOTO)
    line = check(stack, photo, args.timeout)
    print(line)
    return 1 if line.startswith("!") else 0


if __name__ == "__main__":
    sys.exit(main())
