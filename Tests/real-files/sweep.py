#!/usr/bin/env python3
"""Run `stack` on the test images of other projects and compare it with reference decoders.

Issue 22: real files from other projects' test suites must never crash `stack`,
hang it, make it allocate far more than the image they claim, or leave files
behind; and whatever it accepts should decode as the reference decoders do.

For every file with an extension `stack` reads (README, Formats), the sweep
copies it to two names in a fresh temporary folder and runs

    stack --align none --mode average --depth 32f -o out.fits a.EXT b.EXT

(the average of two identical frames is the frame itself, and a 32-bit float
FITS output keeps 8-bit, 16-bit and float samples exactly), with a timeout and
its peak RSS measured by GNU time. The file is decoded by the reference decoder
too (Pillow for JPEG, PNG and TIFF, with ImageOps.exif_transpose; astropy for
FITS), in a separate worker process, and classified:

  match          decoded, and equal to the reference within 1 LSB of 16 bits
                 (one 8-bit level where the reference keeps only 8 bits)
  differs        decoded, but not equal (max and mean difference recorded)
  refused        refused cleanly (exit 1, one `stack: error: <file>:` line)
                 and the reference refuses it too
  false-refusal  refused cleanly, but the reference decodes it
                 (`documented` says whether the README lists it as unsupported)
  suspicious     accepted, but the reference refuses it
  crashed        a signal, an exit code > 128, or a failure without exactly one
                 clean error line (or exit 0 without an output)
  hung           still running at the timeout (killed)
and, on top of those, two flags:
  amplification  peak RSS over 100 MB for a file under 1 MB, and over 8 float
                 copies of the image the reference decoder finds in it
  leftover       a file left in the folder besides the inputs (and out.fits
                 after a success)

The exit status is 1 if any file is crashed, hung, amplification or leftover
(never acceptable); differences and refusals are reported, not fatal.

Usage: sweep.py [SOURCE ...] [--cache DIR] [--timeout S] [--json FILE]
The stack binary is $STACK_BIN, or `$(swift build --show-bin-path)/stack` of
this checkout. Downloads and unpacked sources are kept in the cache folder
(default .build/real-files/) and reused. See Tests/real-files/README.md.
"""

import argparse
import json
import multiprocessing
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import zipfile
import tempfile
import threading
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXTENSIONS = {".jpg", ".jpeg", ".png", ".tif", ".tiff", ".fits", ".fit", ".fts"}
FITS_EXTENSIONS = {".fits", ".fit", ".fts"}
STACK_ARGS = ["--align", "none", "--mode", "average", "--depth", "32f", "-o", "out.fits"]
OUTPUT = "out.fits"
AMPLIFICATION_RSS_KB = 100 * 1024  # peak RSS above this ...
AMPLIFICATION_FILE_SIZE = 1 << 20  # ... for a file below this ...
AMPLIFICATION_FRAMES = 8  # ... and above this many float copies of the image it holds
LSB16 = 1.0 / 65535.0
TIME = "/usr/bin/time"  # GNU time, for the peak RSS (Debian package `time`)
NEVER_ACCEPTABLE = ("crashed", "hung", "amplification", "leftover")
CLASSES = ("match", "differs", "refused", "false-refusal", "suspicious", "crashed", "hung")
FLAGS = ("amplification", "leftover")

# Where the files come from. Debian sources: `apt-get source --download-only`
# from bookworm (the version is whatever bookworm has; it is recorded in the
# JSON). PyPI sdists: pinned, so the set of files does not move.
SOURCES = {
    "libpng": {"deb": "libpng1.6", "dirs": ["contrib/pngsuite", "contrib/testpngs"]},
    "libtiff": {"deb": "tiff", "dirs": ["test/images"]},
    "libjpeg-turbo": {"deb": "libjpeg-turbo", "dirs": ["testimages"]},
    "pillow": {"pypi": "pillow", "version": "13.0.0", "dirs": ["Tests/images"]},
    "astropy": {"pypi": "astropy", "version": "8.0.2", "dirs": ["astropy/io/fits/tests/data"]},
    "scikit-image": {"pypi": "scikit-image", "version": "0.26.0", "wheel": True, "dirs": ["skimage/data"]},
}



def amplification_limit_kb(info):
    """The peak RSS (KiB) above which a small file counts as amplification:
    100 MB, or `AMPLIFICATION_FRAMES` 32-bit float copies of the image the
    reference decoder found in it when that is more (a two-frame average
    holds the frames in flight, the accumulator and the output: a few
    copies of an image that honestly compresses small)."""
    image = info.get("image") if info else None
    if not image:
        return AMPLIFICATION_RSS_KB
    width, height, channels = image
    honest_kb = AMPLIFICATION_FRAMES * width * height * channels * 4 // 1024
    return max(AMPLIFICATION_RSS_KB, honest_kb)

def log(*args):
    print(*args, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# Dependencies and inputs


def ensure_python_packages():
    """Import numpy, Pillow and astropy, installing them with pip if missing."""
    missing = []
    for module, package in (("numpy", "numpy"), ("PIL", "pillow"), ("astropy", "astropy")):
        try:
            __import__(module)
        except ImportError:
            missing.append(package)
    if missing:
        command = [sys.executable, "-m", "pip", "install", "--quiet", *missing]
        log("sweep: installing", " ".join(missing))
        if subprocess.call(command) != 0:
            sys.exit("sweep: could not install %s; run: %s" % (" ".join(missing), " ".join(command)))


def have_deb_src():
    """True if apt has a deb-src entry (one-line .list or deb822 .sources)."""
    files = [Path("/etc/apt/sources.list")] + sorted(Path("/etc/apt/sources.list.d").glob("*"))
    for f in files:
        if f.suffix not in (".list", ".sources") and f.name != "sources.list":
            continue
        try:
            text = f.read_text(errors="replace")
        except OSError:
            continue
        if re.search(r"^\s*deb-src\s", text, re.M) or re.search(r"^Types:.*\bdeb-src\b", text, re.M):
            return True
    return False


def add_deb_src():
    """Adds deb-src entries mirroring the machine's own Debian `deb` entries
    (same URIs, suites, components and keyring), then updates apt's lists."""
    stanzas = []
    for f in sorted(Path("/etc/apt/sources.list.d").glob("*.sources")):
        for block in f.read_text(errors="replace").split("\n\n"):
            if re.search(r"^Types:.*\bdeb\b", block, re.M) and re.search(r"^URIs:.*debian", block, re.M):
                stanzas.append(re.sub(r"^Types:.*$", "Types: deb-src", block.strip(), flags=re.M))
    lines = []
    for f in [Path("/etc/apt/sources.list")] + sorted(Path("/etc/apt/sources.list.d").glob("*.list")):
        if f.exists():
            lines += [re.sub(r"^deb\s", "deb-src ", l) for l in f.read_text(errors="replace").splitlines()
                      if re.match(r"^deb\s.*debian", l)]
    if not stanzas and not lines:
        sys.exit("sweep: apt has no Debian `deb` entry to mirror as deb-src; add a deb-src line")
    log("sweep: adding deb-src entries beside apt's deb entries")
    if stanzas:
        Path("/etc/apt/sources.list.d/stack-sweep-src.sources").write_text("\n\n".join(stanzas) + "\n")
    if lines:
        Path("/etc/apt/sources.list.d/stack-sweep-src.list").write_text("\n".join(lines) + "\n")
    subprocess.run(["apt-get", "update", "-qq"], check=True)


def release_codename():
    """The Debian release's codename (VERSION_CODENAME in /etc/os-release), or None."""
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("VERSION_CODENAME="):
                return line.split("=", 1)[1].strip().strip('"') or None
    except OSError:
        pass
    return None


def fetch_deb(name, package, downloads, unpacked):
    """apt-get source --download-only, then dpkg-source -x; returns (root, version).
    A mirror may list a security update's source without holding its files
    (404): then the release's own version (`package/<codename>`) is taken."""
    source = package.split("/")[0]
    dscs = sorted(downloads.glob(source + "_*.dsc"))
    if not dscs:
        if not have_deb_src():
            add_deb_src()
        codename = release_codename()
        attempts = [package] + ([f"{package}/{codename}"] if "/" not in package and codename else [])
        for attempt in attempts:
            done = subprocess.run(["apt-get", "source", "--download-only", "-qq", attempt], cwd=downloads)
            dscs = sorted(downloads.glob(source + "_*.dsc"))
            if done.returncode == 0 and dscs:
                break
            log(f"sweep: apt-get source {attempt} failed (exit {done.returncode})")
        if not dscs:
            sys.exit(f"sweep: no source package for {package} could be fetched")
    dsc = dscs[-1]
    version = dsc.stem.split("_", 1)[1]
    root = unpacked / name
    if not root.is_dir():
        tmp = unpacked / (name + ".partial")
        shutil.rmtree(tmp, ignore_errors=True)
        subprocess.run(["dpkg-source", "--no-check", "-x", str(dsc), str(tmp)],
                       check=True, stdout=subprocess.DEVNULL)
        tmp.rename(root)
    return root, version


def fetch_pypi(name, package, version, dirs, wheel, downloads, unpacked):
    """Download the pinned distribution with pip and unpack the wanted
    folders; returns (root, version).

    pip is the client as this machine configures it (index, certificates,
    find-links). An sdist is fetched with `--no-binary <package>`, which
    prepares its metadata in an isolated build environment (setuptools for
    Pillow and astropy: seconds). scikit-image's sdist would be compiled for
    that (meson-python), so its data folder is taken from the wheel instead.
    """
    pattern = "*.whl" if wheel else "*.tar.gz"
    stem = re.sub(r"[-_.]+", "_", package).lower() + "-" + version
    found = [f for f in downloads.glob(pattern) if f.name.lower().startswith(stem.lower())]
    if not found:
        binary = ["--only-binary", ":all:"] if wheel else ["--no-binary", package]
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", *binary,
                        "%s==%s" % (package, version), "-d", str(downloads)], check=True)
        found = [f for f in downloads.glob(pattern) if f.name.lower().startswith(stem.lower())]
        if not found:
            sys.exit("sweep: pip brought no %s for %s %s" % (pattern, package, version))
    archive = found[0]
    root = unpacked / name
    if not root.is_dir():
        tmp = unpacked / (name + ".partial")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        if wheel:
            with zipfile.ZipFile(archive) as z:
                wanted = [m for m in z.namelist() if any(m.startswith(d + "/") for d in dirs)]
                z.extractall(tmp, members=wanted)
            tmp.rename(root)
        else:
            with tarfile.open(archive) as tar:
                top = tar.getmembers()[0].name.split("/")[0]
                wanted = [m for m in tar.getmembers()
                          if any(m.name.startswith("%s/%s/" % (top, d)) for d in dirs)]
                tar.extractall(tmp, members=wanted, filter="data")
            (tmp / top).rename(root)
            tmp.rmdir()
    return root, version


def collect(sources, cache):
    """Fetch every source; returns [(source, root, relative path)] and versions."""
    downloads, unpacked = cache / "downloads", cache / "src"
    downloads.mkdir(parents=True, exist_ok=True)
    unpacked.mkdir(parents=True, exist_ok=True)
    files, versions = [], {}
    for name in sources:
        spec = SOURCES[name]
        if "deb" in spec:
            root, version = fetch_deb(name, spec["deb"], downloads, unpacked)
        else:
            root, version = fetch_pypi(name, spec["pypi"], spec["version"], spec["dirs"],
                                       spec.get("wheel", False), downloads, unpacked)
        versions[name] = version
        for d in spec["dirs"]:
            for path in sorted((root / d).rglob("*")):
                if path.suffix.lower() in EXTENSIONS and path.is_file() and not path.is_symlink():
                    files.append((name, root, path.relative_to(root)))
    return files, versions


# --------------------------------------------------------------------------
# Reference decoders (run in a worker process: a crash or hang there must not
# take the sweep down)


def png_bit_depth(path):
    with open(path, "rb") as f:
        head = f.read(33)
    if head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR":
        return head[24]
    return None


def reference_raster(path):
    """Pillow: the first image, orientation applied, as float samples in 0…1."""
    import numpy as np
    from PIL import Image, ImageOps
    Image.MAX_IMAGE_PIXELS = 500_000_000  # stack's own --max-pixels default
    info = {}
    with Image.open(path) as im:
        info["format"] = im.format
        info["mode"] = im.mode
        if im.format == "TIFF":
            tags = im.tag_v2
            info["bits"] = list(tags.get(258, (1,))) if isinstance(tags.get(258), tuple) else [tags.get(258, 1)]
            info["photometric"] = tags.get(262)
            info["sampleformat"] = tags.get(339)
            if isinstance(info["sampleformat"], tuple):
                info["sampleformat"] = info["sampleformat"][0]
        elif im.format == "PNG":
            info["bits"] = [png_bit_depth(path)]
        elif im.format in ("JPEG", "MPO"):
            info["bits"] = [im.bits if hasattr(im, "bits") else 8]
        im.load()
        try:
            oriented = ImageOps.exif_transpose(im)
        except Exception as e:  # a malformed EXIF block: keep the image as stored
            info["note"] = "exif_transpose failed: %s" % e
            oriented = im
        orientation = im.getexif().get(0x0112)
        if orientation not in (None, 1):
            info["orientation"] = orientation
        image = oriented
        mode = image.mode
        if mode in ("1", "P", "PA", "CMYK", "YCbCr", "LAB", "HSV"):
            image = image.convert({"1": "L", "P": "RGBA", "PA": "RGBA"}.get(mode, "RGB"))
            mode = image.mode
        array = np.asarray(image)
    if array.ndim == 2:
        array = array[:, :, None]
    if mode in ("LA", "La", "RGBA", "RGBa", "RGBX"):  # alpha dropped, as stored
        array = array[:, :, :-1]
    if array.size == 0:
        raise ValueError("empty image %s" % (array.shape,))
    bits = max((b or 8) for b in info.get("bits") or [8])
    if array.dtype == np.uint8:
        samples = array.astype(np.float64) / 255.0
        # 8-bit samples as stored are exact at 16 bits; but Pillow keeps only
        # the high byte of 16-bit RGB samples, and rounds a colour JPEG's
        # YCbCr to RGB conversion to 8 bits: then it is only good to 1/255.
        reduced = bits > 8 or (info.get("format") in ("JPEG", "MPO") and info.get("mode") != "L")
        info["precision"] = 8 if reduced else 16
    elif array.dtype.kind in "ui":  # I;16*, I (int32)
        full = 65535.0 if bits <= 16 else float(2 ** bits - 1)
        samples = array.astype(np.float64) / full
        info["precision"] = 16
    elif array.dtype.kind == "f":
        samples = array.astype(np.float64)
        info["precision"] = "float"
    else:
        raise ValueError("unexpected sample type %s" % array.dtype)
    info["image"] = [samples.shape[1], samples.shape[0], samples.shape[2]]  # width, height, channels
    return samples, info


def reference_luma(path):
    """The Y plane of a colour JPEG as libjpeg decodes it (no chroma upsampling
    involved), oriented as reference_raster; None for other files."""
    import numpy as np
    from PIL import Image, ImageOps
    with Image.open(path) as im:
        if im.format != "JPEG" or im.mode != "RGB":
            return None
        im.draft("YCbCr", im.size)
        im.load()
        if im.mode != "YCbCr":
            return None
        try:
            im = ImageOps.exif_transpose(im)
        except Exception:
            pass
        return np.asarray(im)[:, :, 0].astype(np.float64) / 255.0


def reference_fits(path):
    """astropy: the primary HDU, scaled as stack scales it, top row first."""
    import numpy as np
    from astropy.io import fits
    with fits.open(path, memmap=False, do_not_scale_image_data=True) as hdus:
        header = hdus[0].header
        raw = hdus[0].data
        if raw is None:
            raise ValueError("no primary image (NAXIS = %s)" % header.get("NAXIS"))
        raw = np.asarray(raw)
    bitpix = header["BITPIX"]
    info = {"format": "FITS", "bitpix": bitpix, "shape": list(raw.shape)}
    if raw.ndim not in (2, 3):
        raise ValueError("not an image: NAXIS = %d" % raw.ndim)
    if raw.size == 0:
        raise ValueError("empty image %s" % (raw.shape,))
    if raw.ndim == 3 and raw.shape[0] not in (1, 3):
        info["cube"] = True
    phys = raw.astype(np.float64) * float(header.get("BSCALE", 1.0)) + float(header.get("BZERO", 0.0))
    if bitpix > 0:
        if "BLANK" in header:
            phys[raw == header["BLANK"]] = 0.0
        phys /= {8: 255.0, 16: 65535.0, 32: 2.0 ** 32 - 1, 64: 2.0 ** 64 - 1}[bitpix]
        info["precision"] = 16
    else:
        phys[np.isnan(phys)] = 0.0
        info["precision"] = "float"
    if phys.ndim == 2:
        phys = phys[:, :, None]
    else:
        phys = np.moveaxis(phys, 0, -1)
    info["image"] = [phys.shape[1], phys.shape[0], phys.shape[2]]
    return phys[::-1], info  # FITS stores the bottom row first


def reference_decode(path):
    """Decode with the reference decoder: (samples or None, info, error or None)."""
    warnings.simplefilter("ignore")
    try:
        if Path(path).suffix.lower() in FITS_EXTENSIONS:
            samples, info = reference_fits(path)
        else:
            samples, info = reference_raster(path)
        return samples, info, None
    except BaseException as e:  # anything the decoder raises is a refusal
        return None, {}, "%s: %s" % (type(e).__name__, str(e)[:300])


def read_output(path):
    """The stack output (a 32-bit float FITS) as HxWxC, top row first."""
    import numpy as np
    from astropy.io import fits
    with fits.open(path, memmap=False) as hdus:
        data = np.asarray(hdus[0].data, dtype=np.float64)
    data = data[:, :, None] if data.ndim == 2 else np.moveaxis(data, 0, -1)
    return data[::-1]


def _worker(connection):
    """Serve ("reference", path) and ("compare", output path) requests.

    The reference samples stay here, so the sweep process stays small: a
    child forked from it starts with its peak RSS, which would blur the
    memory figures.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)  # libtiff's and libjpeg's messages
    samples = info = luma = None
    while True:
        request = connection.recv()
        if request is None:
            return
        kind, path = request
        try:
            if kind == "reference":
                samples, info, error = reference_decode(path)
                luma = None
                if error is None and info.get("format") == "JPEG":
                    try:
                        luma = reference_luma(path)
                    except Exception:
                        pass
                connection.send((info, error))
            else:
                ours = read_output(path)
                result = compare(ours, samples, info.get("precision", 16))
                if luma is not None and not result["equal"] and "note" not in result:
                    result.update(compare_luma(ours, luma))
                connection.send((result, None))
        except BaseException as e:
            connection.send(({}, "%s: %s" % (type(e).__name__, str(e)[:300])))


class Decoder:
    """A worker process for the reference decoders, restarted if it dies or hangs."""

    def __init__(self, timeout):
        self.timeout = timeout
        self.process = None

    def start(self):
        context = multiprocessing.get_context("spawn")
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_worker, args=(child,), daemon=True)
        self.process.start()
        child.close()

    def stop(self):
        if self.process is not None:
            self.process.kill()
            self.process.join()
            self.process = None

    def __call__(self, kind, path):
        if self.process is None or not self.process.is_alive():
            self.start()
        try:
            self.connection.send((kind, str(path)))
            if self.connection.poll(self.timeout):
                return self.connection.recv()
            error = "reference decoder timed out after %g s" % self.timeout
        except (EOFError, OSError) as e:
            error = "reference decoder died: %s" % e
        self.stop()
        return {}, error


# --------------------------------------------------------------------------
# Comparison


def documented_limitation(info):
    """Why the README's Formats section says stack refuses this layout, or None."""
    fmt = info.get("format")
    if fmt == "JPEG" and info.get("mode") == "CMYK":
        return "CMYK JPEG"
    if fmt == "JPEG" and (info.get("bits") or [8])[0] not in (8, None):
        return "%s-bit JPEG" % info["bits"][0]
    if fmt == "TIFF":
        photometric = info.get("photometric")
        if photometric == 3:
            return "palette TIFF"
        if photometric == 5:
            return "CMYK TIFF"
        if photometric == 0:
            return "min-is-white TIFF"
        if photometric not in (1, 2, 6, None):
            return "TIFF photometric %s" % photometric
        bits = set(info.get("bits") or [])
        sampleformat = info.get("sampleformat") or 1
        if sampleformat == 2:
            return "signed-integer TIFF"
        if sampleformat == 3 and bits != {32}:
            return "%s-bit float TIFF" % "/".join(map(str, sorted(bits)))
        if sampleformat == 1 and not bits <= {8, 16}:
            return "%s-bit TIFF" % "/".join(map(str, sorted(bits)))
    if fmt == "FITS":
        if info.get("cube"):
            return "FITS cube %s" % info.get("shape")
        if info.get("bitpix") == 64:
            return "64-bit integer FITS"
    return None


def compare(ours, ref, precision):
    """Differences between our output and the reference, in 16-bit LSBs of full scale."""
    import numpy as np
    result = {"size": [ours.shape[1], ours.shape[0], ours.shape[2]],
              "reference_size": [ref.shape[1], ref.shape[0], ref.shape[2]]}
    if ours.shape[:2] != ref.shape[:2]:
        result.update(equal=False, note="size differs")
        return result
    if ours.shape[2] != ref.shape[2]:
        if ours.shape[2] == 1 and ref.shape[2] == 3 and np.array_equal(ref[..., :1].repeat(3, 2), ref):
            ref = ref[..., :1]  # a gray palette, expanded by Pillow to RGB
        elif ours.shape[2] == 3 and ref.shape[2] == 1:
            ref = ref.repeat(3, 2)
        else:
            result.update(equal=False, note="channels differ")
            return result
    if precision != "float":  # an integer reference is clamped to 0…1; stack's float output is not
        ours = np.clip(ours, 0.0, 1.0)
    both_nan = np.isnan(ours) & np.isnan(ref)
    diff = np.where(both_nan | (ours == ref), 0.0, np.abs(ours - ref))
    diff = np.nan_to_num(diff, nan=np.inf)
    if precision == "float":
        tolerance = LSB16 * np.maximum(1.0, np.abs(np.nan_to_num(ref)))
    else:
        tolerance = np.full(diff.shape, (1.0 / 255.0 if precision == 8 else LSB16) * 1.0001)
    over = diff > tolerance
    result.update(equal=not over.any(),
                  precision=precision,
                  max_diff_lsb16=float(diff.max() * 65535.0),
                  mean_diff_lsb16=float(diff.mean() * 65535.0),
                  fraction_over_tolerance=float(over.mean()))
    return result


def compare_luma(ours, luma):
    """For a colour JPEG: how far our Y (BT.601, as JFIF) is from libjpeg's Y plane,
    in 8-bit levels. Small when only the chroma upsampling differs (stack
    upsamples Cb and Cr with Lanczos-3, libjpeg with its triangle filter)."""
    import numpy as np
    if ours.shape[:2] != luma.shape or ours.shape[2] != 3:
        return {}
    # The float output is not clamped, so its Y is the decoded Y exactly.
    y = ours[..., 0] * 0.299 + ours[..., 1] * 0.587 + ours[..., 2] * 0.114
    diff = np.abs(y - luma) * 255.0
    return {"luma_max_diff_8bit": float(diff.max()), "luma_mean_diff_8bit": float(diff.mean())}


# --------------------------------------------------------------------------
# Running stack


def run_stack(binary, source_file, work, timeout):
    """Run stack on two copies of source_file in a fresh folder under work."""
    folder = Path(tempfile.mkdtemp(dir=work))
    suffix = source_file.suffix
    names = ["a" + suffix, "b" + suffix]
    for name in names:
        shutil.copyfile(source_file, folder / name)
    stderr_path = work / (folder.name + ".stderr")
    rss_path = work / (folder.name + ".rss")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    started = time.monotonic()
    # GNU time forks stack from its own small process, so %M is stack's peak
    # RSS alone; a signal comes back as exit 128 + N.
    command = [TIME, "-q", "-f", "%M", "-o", str(rss_path), binary, *STACK_ARGS, *names]
    with open(stderr_path, "wb") as stderr:
        process = subprocess.Popen(command, cwd=folder, env=env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=stderr, start_new_session=True)
    timed_out = threading.Event()

    def kill():
        timed_out.set()
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    timer = threading.Timer(timeout, kill)
    timer.start()
    process.wait()
    timer.cancel()
    seconds = time.monotonic() - started
    stderr_text = stderr_path.read_bytes().decode("utf-8", "replace")
    try:
        max_rss_kb = int(rss_path.read_text().split()[-1])
    except (OSError, ValueError, IndexError):  # killed at the timeout
        max_rss_kb = 0
    stderr_path.unlink()
    rss_path.unlink(missing_ok=True)
    left = sorted(set(os.listdir(folder)) - set(names))
    output = None
    if process.returncode == 0 and OUTPUT in left:
        output = folder / OUTPUT
        left.remove(OUTPUT)
    return {"folder": folder, "names": names, "exit": process.returncode, "hung": timed_out.is_set(),
            "seconds": round(seconds, 3), "max_rss_kb": max_rss_kb, "stderr": stderr_text,
            "left": left, "output": output}


def clean_refusal(stderr, names):
    """The error line if stderr is exactly one `stack: error: <one of names>:` line (plus warnings)."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("stack: error: ")]
    others = [line for line in lines if not line.startswith(("stack: error: ", "stack: warning: "))]
    if len(errors) == 1 and not others and \
            any(errors[0].startswith("stack: error: %s:" % name) for name in names):
        return errors[0]
    return None


def sweep_file(binary, decoder, source, root, relative, work, timeout):
    path = root / relative
    size = path.stat().st_size
    run = run_stack(binary, path, work, timeout)
    record = {"source": source, "path": str(relative), "size": size, "exit": run["exit"],
              "seconds": run["seconds"], "max_rss_kb": run["max_rss_kb"], "flags": []}
    stderr_lines = run["stderr"].splitlines()
    record["stderr"] = "\n".join(stderr_lines[:6]) + ("\n…" if len(stderr_lines) > 6 else "")

    info, ref_error = decoder("reference", path)
    record["reference"] = {"decoded": ref_error is None, "error": ref_error,
                           **info}

    exit_code = run["exit"]
    if run["hung"]:
        record["class"], record["why"] = "hung", "killed after %g s" % timeout
    elif exit_code < 0 or exit_code > 128:
        record["class"] = "crashed"
        record["why"] = "signal %d" % (exit_code - 128) if exit_code > 128 else "exit %d" % exit_code
    elif exit_code == 0:
        if run["output"] is None:
            record["class"], record["why"] = "crashed", "exit 0 without " + OUTPUT
        elif ref_error is not None:
            record["class"] = "suspicious"
        else:
            if info.get("cube"):
                record["class"], record["why"] = "differs", "a cube: the reference is not one image"
            else:
                comparison, out_error = decoder("compare", run["output"])
                if out_error is not None:
                    record["class"], record["why"] = "differs", "comparison failed: " + out_error
                else:
                    record["compare"] = comparison
                    record["class"] = "match" if comparison["equal"] else "differs"
                    if comparison.get("luma_max_diff_8bit", 1.0) <= 0.5:
                        record["why"] = "chroma only: Y equals libjpeg's"
    else:
        line = clean_refusal(run["stderr"], run["names"])
        if exit_code == 1 and line is not None:
            record["error"] = line
            if ref_error is None:
                record["class"] = "false-refusal"
                reason = documented_limitation(info)
                record["documented"] = reason is not None
                if reason:
                    record["limitation"] = reason
            else:
                record["class"] = "refused"
        else:
            record["class"] = "crashed"
            record["why"] = "exit %d without exactly one clean `stack: error:` line" % exit_code

    if size < AMPLIFICATION_FILE_SIZE and run["max_rss_kb"] > amplification_limit_kb(info):
        record["flags"].append("amplification")
    if run["left"] and not run["hung"]:
        record["flags"].append("leftover")
        record["left"] = run["left"]
    shutil.rmtree(run["folder"], ignore_errors=True)
    return record


# --------------------------------------------------------------------------
# Report


def summarize(records, out=sys.stdout):
    columns = CLASSES + FLAGS + ("total",)
    sources = sorted({r["source"] for r in records}, key=list(SOURCES).index)
    counts = {}
    for r in records:
        for key in (r["source"], "TOTAL"):
            row = counts.setdefault(key, dict.fromkeys(columns, 0))
            row[r["class"]] += 1
            for flag in r["flags"]:
                row[flag] += 1
            row["total"] += 1
    width = max([len(s) for s in sources] + [6])
    print("%-*s " % (width, "source") + " ".join("%*s" % (max(len(c), 5), c) for c in columns), file=out)
    for key in sources + ["TOTAL"]:
        row = counts.get(key, dict.fromkeys(columns, 0))
        print("%-*s " % (width, key) + " ".join("%*d" % (max(len(c), 5), row[c]) for c in columns), file=out)
    false_refusals = [r for r in records if r["class"] == "false-refusal"]
    documented = sum(1 for r in false_refusals if r.get("documented"))
    print("\nfalse refusals: %d of a layout the README says is refused, %d others"
          % (documented, len(false_refusals) - documented), file=out)
    differs = [r for r in records if r["class"] == "differs"]
    chroma = sum(1 for r in differs if r.get("why", "").startswith("chroma only"))
    print("differs: %d colour JPEGs whose Y plane equals libjpeg's (chroma upsampling), %d others"
          % (chroma, len(differs) - chroma), file=out)
    bad = [r for r in records if r["class"] in NEVER_ACCEPTABLE or r["flags"]]
    if bad:
        print("\nnever acceptable:", file=out)
        for r in bad:
            what = [r["class"]] if r["class"] in NEVER_ACCEPTABLE else []
            what += r["flags"]
            pixels = r["reference"].get("image")
            print("  %-13s %s/%s (%d bytes%s): exit %d, %.1f s, %d MB%s%s" % (
                "+".join(what), r["source"], r["path"], r["size"],
                ", image " + "×".join(map(str, pixels)) if pixels else "", r["exit"], r["seconds"],
                r["max_rss_kb"] // 1024, ", " + r["why"] if r.get("why") else "",
                ", left " + " ".join(r["left"]) if r.get("left") else ""), file=out)
    return 1 if bad else 0


def stack_binary(script):
    """The stack binary the checks run: $STACK_BIN, or the one `swift build`
    puts in its bin path. Exits with one line naming `script` when it is missing."""
    binary = os.environ.get("STACK_BIN")
    if not binary:
        bin_path = subprocess.run(["swift", "build", "--show-bin-path"], cwd=REPO, check=True,
                                  capture_output=True, text=True).stdout.strip()
        binary = os.path.join(bin_path, "stack")
    if not os.access(binary, os.X_OK):
        sys.exit("%s: no stack binary at %s (swift build, or set STACK_BIN)" % (script, binary))
    return os.path.abspath(binary)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sources", nargs="*", metavar="SOURCE",
                        help="limit to these sources: " + ", ".join(SOURCES) + " (default: all)")
    parser.add_argument("--cache", type=Path, default=REPO / ".build" / "real-files",
                        help="downloads, unpacked sources and the results (default: %(default)s)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per stack run (default: 30)")
    parser.add_argument("--json", type=Path, help="results file (default: CACHE/results.json)")
    args = parser.parse_args()
    unknown = [s for s in args.sources if s not in SOURCES]
    if unknown:
        parser.error("unknown source %s (choose from %s)" % (", ".join(unknown), ", ".join(SOURCES)))
    sources = args.sources or list(SOURCES)

    ensure_python_packages()
    if not os.access(TIME, os.X_OK):
        if os.geteuid() != 0:
            sys.exit("sweep: GNU time missing: sudo apt-get install -y time")
        subprocess.run(["apt-get", "install", "-y", "-qq", "time"], check=True,
                       env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    binary = stack_binary("sweep")

    cache = args.cache.resolve()
    files, versions = collect(sources, cache)
    log("sweep: %d files from %s; stack = %s" % (
        len(files), ", ".join("%s %s" % (s, versions[s]) for s in sources), binary))

    work = cache / "tmp"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    decoder = Decoder(timeout=max(60.0, args.timeout))
    records, started = [], time.monotonic()
    try:
        for i, (source, root, relative) in enumerate(files, 1):
            record = sweep_file(binary, decoder, source, root, relative, work, args.timeout)
            records.append(record)
            if record["class"] in NEVER_ACCEPTABLE or record["flags"]:
                log("sweep: [%d/%d] %s/%s: %s" % (i, len(files), source, relative,
                                                  "+".join([record["class"]] + record["flags"])))
            elif i % 100 == 0:
                log("sweep: [%d/%d]" % (i, len(files)))
    finally:
        decoder.stop()
    elapsed = time.monotonic() - started
    shutil.rmtree(work, ignore_errors=True)

    json_path = args.json or cache / "results.json"
    with open(json_path, "w") as f:
        json.dump({"stack": binary, "command": ["stack", *STACK_ARGS, "a.EXT", "b.EXT"],
                   "timeout": args.timeout, "versions": versions, "seconds": round(elapsed, 1),
                   "files": records}, f, indent=1)
    status = summarize(records)
    print("\n%d files in %.0f s; per-file results in %s" % (len(records), elapsed, json_path))
    return status


if __name__ == "__main__":
    sys.exit(main())
