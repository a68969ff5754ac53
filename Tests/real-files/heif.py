#!/usr/bin/env python3
"""HEIF-family files from other projects' test suites through `stack`,
checked against libheif's own `heif-convert` (issue 24).

    python3 Tests/real-files/heif.py [--cache DIR] [--timeout S] [--json FILE]
    (make real-files-heif)

Sources (fetched into the cache folder, default `.build/real-files/`, the
same as sweep.py's and with its fetchers):
- `libheif`: `apt-get source --download-only libheif/bookworm` (the security
  update's source is not on every mirror): `examples/` and the fuzzing corpus
  `fuzzing/corpus/` (crafted and damaged files);
- `pillow-heif`: the PyPI sdist `pillow-heif==1.9.0`, `tests/images/` (8/10/12-bit,
  monochrome, alpha, a 90° rotated Sony HIF, a Nokia burst, iPhone-style
  files with thumbnails and EXIF, a 200 MP file, truncated and corrupted files);
- `exiv2`: `apt-get source --download-only exiv2/bookworm`, `test/data/`
  (iPhone HEICs, Canon and Sony HIF, AVIF with EXIF and XMP, a crafted PoC).

For each file:
- the reference is `heif-convert FILE ref.png` (the primary image, with its
  transformations, as libheif's own tool writes it);
- a file of one top-level image is stacked with itself
  (`stack --align none --mode average --depth 32f -o out.fits FILE FILE`: the
  average of a frame with itself is the frame) and compared with the
  reference: the same size (so the same way up) and every sample within 2
  levels of 255 is `match`; otherwise `differs`;
- a file of several top-level images of one size is stacked as a burst
  (`stack --align none --mode median FILE`), which must use as many frames
  as `heif-info` lists images (`burst`), else `differs` (heif-convert
  decodes only the primary image, and refuses image sequences); a file whose
  top-level images differ in size gives its primary image, compared as above;
- a file heif-convert cannot decode must be refused with one line naming the
  file (`refused`); one it decodes and we refuse is `false-refusal`; every
  run has `--max-pixels 120M`, so the 200 MP file must be refused from its
  header (`over-limit`);
- a crash (signal, or a Swift trap), a run past the timeout, or a message of
  more than one line fails the run whatever else happened.

Exit status: 0 when every file is `match`, `burst`, `over-limit`, or
`refused` where heif-convert also fails; 1 otherwise. Needs numpy, Pillow and astropy (pip),
libheif-examples (apt).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sweep  # noqa: E402  (its fetchers and dependency installer)
import gdepth  # noqa: E402  (the GDepth check, shared with make real-files)

REPO = Path(__file__).resolve().parents[2]
HEIF_EXTENSIONS = {".heic", ".heif", ".hif", ".avif"}
LEVELS = 2.0 / 255.0
# --max-pixels for every run: pillow-heif's 200 MP file must then be refused
# from its header (memory bounded), the others are far below it.
MAX_PIXELS = "120M"
SOURCES = {
    "libheif": {"deb": "libheif/bookworm", "dirs": ["examples", "fuzzing/corpus"]},
    "pillow-heif": {"pypi": "pillow-heif", "version": "1.9.0", "dirs": ["tests/images"]},
    "exiv2": {"deb": "exiv2/bookworm", "dirs": ["test/data"]},
}


def fetch(cache):
    downloads, unpacked = cache / "downloads", cache / "src"
    downloads.mkdir(parents=True, exist_ok=True)
    unpacked.mkdir(parents=True, exist_ok=True)
    files = []
    for name, spec in SOURCES.items():
        if "deb" in spec:
            root, _ = fetch_deb(name, spec["deb"], downloads, unpacked)
        else:
            root, _ = sweep.fetch_pypi(name, spec["pypi"], spec["version"], spec["dirs"], False, downloads, unpacked)
        for d in spec["dirs"]:
            for f in sorted((root / d).rglob("*")):
                if f.is_file() and f.suffix.lower() in HEIF_EXTENSIONS:
                    files.append((name, f))
    return files


def fetch_deb(name, spec, downloads, unpacked):
    """sweep.fetch_deb for `package/suite` (a release pin)."""
    package = spec.split("/")[0]
    if not sorted(downloads.glob(package + "_*.dsc")):
        if not sweep.have_deb_src():
            sweep.add_deb_src()
        subprocess.run(["apt-get", "source", "--download-only", "-qq", spec], cwd=downloads, check=True)
    return sweep.fetch_deb(name, package, downloads, unpacked)


def run(command, cwd, timeout):
    try:
        p = subprocess.run(command, cwd=cwd, capture_output=True, text=True, errors="replace", timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", ""


def top_level_images(path):
    """The sizes of the file's top-level images as heif-info lists them, and
    the index of the primary among them (0 when none is marked); (None, 0)
    when heif-info fails."""
    rc, out, _ = run(["heif-info", str(path)], None, 60)
    if rc != 0:
        return None, 0
    images = [line for line in out.splitlines() if line.startswith("image: ")]
    primary = next((i for i, line in enumerate(images) if line.rstrip().endswith("primary")), 0)
    return [line.split()[1] for line in images], primary


def load_reference(png):
    from PIL import Image
    import numpy as np
    im = Image.open(png)
    if im.mode in ("L", "LA", "I;16", "I"):
        a = np.asarray(im.convert("L"), dtype=np.float64) / 255.0
        return np.stack([a, a, a])
    a = np.asarray(im.convert("RGB"), dtype=np.float64) / 255.0
    return np.moveaxis(a, 2, 0)


def load_ours(fits):
    from astropy.io import fits as pyfits
    import numpy as np
    data = np.asarray(pyfits.getdata(fits), dtype=np.float64)
    if data.ndim == 2:
        data = np.stack([data, data, data])
    return data[:, ::-1, :]  # FITS stores the bottom row first


def check(stack, path, timeout):
    work = Path(tempfile.mkdtemp(prefix="stack-heif-"))
    try:
        rc, _, _ = run(["heif-convert", str(path), "ref.png"], work, timeout)
        sizes, primary = top_level_images(path)
        # heif-convert writes ref.png, or ref-1.png, ref-2.png, … for a file
        # of several top-level images: the primary's is then ref-<its index + 1>.
        named = work / "ref.png" if not sizes or len(sizes) < 2 else work / ("ref-%d.png" % (primary + 1))
        reference = named if rc == 0 and named.exists() else None
        # A burst: several top-level images of one size (heif-convert writes
        # only the primary, and refuses image sequences).
        count = len(sizes) if sizes and len(sizes) > 1 and len(set(sizes)) == 1 else None
        limit = ["--max-pixels", MAX_PIXELS]
        if count:
            command = [stack, "--align", "none", "--mode", "median", *limit, "--report", "r.json", "-o", "out.png",
                       str(path)]
        else:
            # The same file under a second name (the same name twice is one frame).
            twin = work / ("twin" + path.suffix)
            shutil.copyfile(path, twin)
            command = [stack, "--align", "none", "--mode", "average", "--depth", "32f", *limit, "-o", "out.fits",
                       str(path), str(twin)]
        rc, _, err = run(command, work, timeout)
        lines = [l for l in err.splitlines() if l.strip()]
        row = {"file": str(path), "heif-convert": reference is not None, "stderr": err.strip()}
        if rc is None:
            row["class"] = "hung"
        elif rc < 0 or rc >= 128 or "Fatal error" in err:
            row["class"] = "crashed"
        elif rc != 0:
            if len(lines) != 1 or str(path.name) not in lines[0]:
                row["class"] = "bad-message"
            elif "more than the limit of" in lines[0]:
                row["class"] = "over-limit"
            else:
                row["class"] = "false-refusal" if reference or count else "refused"
        elif count:
            frames = json.loads((work / "r.json").read_text())["frames"]
            used = sum(1 for f in frames if f.get("used"))
            row["frames"] = used
            row["class"] = "burst" if used == count else "differs"
        elif reference is None:
            row["class"] = "suspicious"  # we read what libheif's own tool cannot
        else:
            ours, ref = load_ours(work / "out.fits"), load_reference(reference)
            row["size"] = [int(ours.shape[2]), int(ours.shape[1])]
            if ours.shape != ref.shape:
                row["class"] = "differs"
                row["why"] = "size %s, heif-convert %s" % (ours.shape, ref.shape)
            else:
                import numpy as np
                worst = float(np.max(np.abs(np.clip(ours, 0, 1) - ref)))
                row["max_levels"] = round(worst * 255, 3)
                row["class"] = "match" if worst <= LEVELS + 1e-9 else "differs"
        for leftover in work.glob(".stack*"):
            row["class"] = "leftover"
        return row
    finally:
        shutil.rmtree(work, ignore_errors=True)


def check_gdepth(stack, cache, timeout):
    """gdepth.py's check on exiv2's Google Camera lens-blur photo (fetched
    with the exiv2 source above); None when the file or exiftool is absent."""
    photo = gdepth.photo_in(cache)
    if photo is None or shutil.which("exiftool") is None:
        return None
    return gdepth.check(stack, photo, timeout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", default=str(REPO / ".build" / "real-files"))
    # heif-convert itself takes a minute for the 33 MP 10-bit Sony HIF here.
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--json")
    args = parser.parse_args()
    sweep.ensure_python_packages()
    if shutil.which("heif-convert") is None:
        sys.exit("heif: heif-convert missing: apt-get install libheif-examples")
    stack = sweep.stack_binary("heif")
    rows = [dict(check(stack, f, args.timeout), source=s) for s, f in fetch(Path(args.cache))]
    ok = {"match", "burst", "refused", "over-limit"}
    counts = {}
    for r in rows:
        counts[r["class"]] = counts.get(r["class"], 0) + 1
        mark = " " if r["class"] in ok else "!"
        detail = r.get("why") or (("max %s levels" % r["max_levels"]) if "max_levels" in r else "") \
            or (("%d frames" % r["frames"]) if "frames" in r else "") or r["stderr"]
        print("%s %-13s %-12s %s  %s" % (mark, r["class"], r["source"], Path(r["file"]).name, detail))
    print("heif: %d files: %s" % (len(rows), ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    gdepth = check_gdepth(stack, args.cache, args.timeout)
    if gdepth:
        print(gdepth)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0 if all(r["class"] in ok for r in rows) and not (gdepth or "").startswith("!") else 1


if __name__ == "__main__":
    sys.exit(main())
