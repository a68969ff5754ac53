#!/usr/bin/env python3
"""PSNR of a stacked image against a session's ground truth (the bench's one scorer).

    psnr_truth.py TRUTH IMAGE [--border PX] [--fits-rows bottom-up|top-down]

Both images are read as single-channel float arrays on the 0…1 scale (colour
images are compared per channel over all channels):
- PNG / TIFF through Pillow: 8-bit / 16-bit integers divided by 255 / 65535,
  float TIFFs taken as they are;
- FITS (.fit/.fits/.fts) through astropy when installed, otherwise a minimal
  reader of the primary image HDU (BITPIX 8/16/32/-32/-64, BZERO/BSCALE);
  integer data are divided by 65535 (8-bit by 255) after BZERO/BSCALE, float
  data are taken as they are (Siril's 32-bit output is already 0…1).
  FITS rows run bottom-up (row 0 is the bottom of the picture: the FITS
  convention, which Siril follows), so they are flipped to our top-down
  orientation unless --fits-rows top-down says the writer did not.

PSNR = 10·log10(1 / MSE) with peak 1, over the interior: BORDER pixels are left
out on every side (default 0), so borders that not every frame covers after
alignment do not count. `psnr_fit_db` is the same after the affine level map
a·image + c that best matches the truth (least squares; never below
`psnr_db`, since a = 1, c = 0 is a candidate; `gain` = 1/a and `offset` =
−c/a describe the image as gain·truth + offset): it scores noise, rejection
and registration without the tools' level conventions (Siril normalises the
flat by its central third, `stack` by its mean). Prints one JSON object on stdout:
{"psnr_db", "rmse", "mean_diff" (image − truth, a level offset shows here),
 "psnr_fit_db", "gain", "offset", "border", "width", "height", "pixels"}, and
for single-channel images the level-matched PSNR split in two:
"psnr_fit_structure_db" over the pixels within 3 px of the truth's stars
(above its median + 0.02), "psnr_fit_smooth_db" over the rest, and
"structure_fraction", the share of the first. Exit status 1 when a file cannot be
read or the sizes differ.
"""
import argparse
import json
import math
import sys

import numpy as np


def read_fits(path, rows):
    """The primary HDU of a FITS file as float64, top-down unless rows == 'top-down' already."""
    try:
        from astropy.io import fits  # optional: the fallback below covers Siril's files

        with fits.open(path, memmap=False) as hdul:
            hdu = next(h for h in hdul if h.data is not None)
            data = np.asarray(hdu.data, dtype=np.float64)
            bitpix = hdu.header.get("BITPIX", -32)
    except ImportError:
        data, bitpix = read_fits_minimal(path)
    if bitpix > 0:
        data = data / (255.0 if bitpix == 8 else 65535.0)
    if data.ndim == 3:  # (channels, rows, columns) → (rows, columns, channels)
        data = np.moveaxis(data, 0, -1)
    return data[::-1] if rows == "bottom-up" else data


def read_fits_minimal(path):
    """Primary image HDU without astropy: 2880-byte blocks of 80-character cards, big-endian data."""
    with open(path, "rb") as f:
        raw = f.read()
    cards, offset = {}, 0
    while True:
        block = raw[offset:offset + 2880]
        if len(block) < 2880:
            raise ValueError("truncated FITS header")
        offset += 2880
        done = False
        for i in range(0, 2880, 80):
            card = block[i:i + 80].decode("ascii", "replace")
            key = card[:8].strip()
            if key == "END":
                done = True
                break
            if card[8:10] == "= ":
                cards[key] = card[10:].split("/")[0].strip().strip("'").strip()
        if done:
            break
    bitpix, naxis = int(cards["BITPIX"]), int(cards["NAXIS"])
    shape = [int(cards["NAXIS%d" % (k + 1)]) for k in range(naxis)][::-1]
    dtype = {8: ">u1", 16: ">i2", 32: ">i4", -32: ">f4", -64: ">f8"}[bitpix]
    count = int(np.prod(shape))
    data = np.frombuffer(raw, dtype=dtype, count=count, offset=offset).reshape(shape).astype(np.float64)
    return data * float(cards.get("BSCALE", 1)) + float(cards.get("BZERO", 0)), bitpix


def read_image(path, rows="bottom-up"):
    """Any PNG / TIFF / FITS as float64 on the 0…1 scale, rows top-down."""
    if path.lower().endswith((".fit", ".fits", ".fts")):
        return read_fits(path, rows)
    from PIL import Image

    with Image.open(path) as im:
        mode = im.mode
        a = np.array(im)
    if a.dtype == np.uint8:
        return a.astype(np.float64) / 255.0
    if a.dtype.kind in "ui" or mode.startswith("I"):
        return a.astype(np.float64) / 65535.0
    return a.astype(np.float64)


def psnr(mse):
    """10·log10(1 / MSE): peak 1."""
    return 10 * math.log10(1 / mse) if mse > 0 else float("inf")


def main():
    p = argparse.ArgumentParser(description="PSNR (peak 1) of IMAGE against TRUTH over the interior.")
    p.add_argument("truth")
    p.add_argument("image")
    p.add_argument("--border", type=int, default=0, help="pixels left out on every side (default 0)")
    p.add_argument("--fits-rows", choices=["bottom-up", "top-down"], default="bottom-up",
                   help="row order of FITS inputs (default bottom-up, the FITS convention)")
    a = p.parse_args()
    try:
        truth = read_image(a.truth, a.fits_rows)
        image = read_image(a.image, a.fits_rows)
    except Exception as e:  # one clear line, not a traceback
        print("psnr_truth: error: %s" % e, file=sys.stderr)
        return 1
    if truth.shape != image.shape:
        print("psnr_truth: error: sizes differ: truth %s, image %s" % (truth.shape, image.shape), file=sys.stderr)
        return 1
    b = a.border
    h, w = truth.shape[:2]
    if 2 * b >= min(h, w):
        print("psnr_truth: error: border %d leaves nothing of %dx%d" % (b, w, h), file=sys.stderr)
        return 1
    d = image[b:h - b, b:w - b] - truth[b:h - b, b:w - b]
    mse = float(np.mean(d * d))
    t = truth[b:h - b, b:w - b].ravel()
    x = image[b:h - b, b:w - b].ravel()
    a, c = np.polyfit(x, t, 1) if x.std() > 0 else (1.0, float(np.mean(t - x)))
    f = a * x + c - t
    gain, offset = 1 / a, -c / a
    mse_fit = float(np.mean(f * f))
    out = {"psnr_db": psnr(mse), "rmse": math.sqrt(mse), "mean_diff": float(np.mean(d)),
           "psnr_fit_db": psnr(mse_fit), "gain": float(gain), "offset": float(offset),
           "border": b, "width": w, "height": h, "pixels": int(d.size)}
    # The level-matched error split where the truth has structure (stars:
    # above its median by more than 2 % of the range, grown by 3 px) and
    # where it is smooth (the rest): noise shows in the one, resampling
    # sharpness and registration in the other.
    tt = truth[b:h - b, b:w - b]
    if tt.ndim == 2:
        structure = tt > np.median(tt) + 0.02
        grown = structure.copy()
        for dy in range(-3, 4):
            for dx in range(-3, 4):
                grown |= np.roll(np.roll(structure, dy, 0), dx, 1)
        f2 = f.reshape(tt.shape)
        if grown.any() and (~grown).any():
            out["psnr_fit_structure_db"] = psnr(float(np.mean(f2[grown] ** 2)))
            out["psnr_fit_smooth_db"] = psnr(float(np.mean(f2[~grown] ** 2)))
            out["structure_fraction"] = float(grown.mean())
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
