#!/usr/bin/env python3
"""Reference registration for stack-bench: scikit-image and OpenCV.

For frames 1..N of a SceneGen burst, estimates the translation of each frame
against frame 0 on the Rec. 601 luma (the same luma `stack` registers on):

- scikit-image `phase_cross_correlation(reference, moving, upsample_factor=100)`
  (float64, no window, the function's defaults otherwise);
- OpenCV `cv2.phaseCorrelate(reference, moving, window)` with a Hann window
  (float32), OpenCV's own 5×5 weighted-centroid subpixel estimate.

Only the estimate is timed (decode and luma are done first). Errors are
Euclidean distances to the true shift in truth.json, whose convention is
frame(x, y) = reference(x + dx, y + dy) (see DESIGN.md). Sign conventions:
skimage returns the shift that registers `moving` onto `reference`, i.e.
(dy, dx) = (+dy, +dx) here; OpenCV returns the shift of the second image
relative to the first, i.e. (−dx, −dy) here.

    python3 register_peers.py truth.json FRAME0 FRAME1 ...
Prints {"skimage": {...}, "opencv": {...}} as JSON on stdout.
"""
import json
import statistics
import sys
import time

import cv2
import numpy as np
from PIL import Image
from skimage.registration import phase_cross_correlation


def luma(path):
    rgb = np.asarray(Image.open(path).convert("RGB"), dtype=np.float64) / 255.0
    return 0.299 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2]


def summarise(times, errors):
    return {
        "time_s_median": statistics.median(times),
        "time_s_min": min(times),
        "time_s_max": max(times),
        "error_px_rms": float(np.sqrt(np.mean(np.square(errors)))),
        "error_px_max": float(max(errors)),
        "frames": float(len(times)),
    }


def main():
    truth_path, paths = sys.argv[1], sys.argv[2:]
    with open(truth_path) as f:
        truth = [(fr["dx"], fr["dy"]) for fr in json.load(f)["frames"]]
    ref = luma(paths[0])
    ref32 = ref.astype(np.float32)
    window = cv2.createHanningWindow((ref.shape[1], ref.shape[0]), cv2.CV_32F)
    sk_t, sk_e, cv_t, cv_e = [], [], [], []
    for i, p in enumerate(paths[1:], start=1):
        frame = luma(p)
        frame32 = frame.astype(np.float32)
        tdx, tdy = truth[i]

        t0 = time.perf_counter()
        shift, _, _ = phase_cross_correlation(ref, frame, upsample_factor=100)
        sk_t.append(time.perf_counter() - t0)
        sk_e.append(float(np.hypot(shift[1] - tdx, shift[0] - tdy)))

        t0 = time.perf_counter()
        (sx, sy), _ = cv2.phaseCorrelate(ref32, frame32, window)
        cv_t.append(time.perf_counter() - t0)
        cv_e.append(float(np.hypot(-sx - tdx, -sy - tdy)))
    print(json.dumps({"skimage": summarise(sk_t, sk_e), "opencv": summarise(cv_t, cv_e)}))


if __name__ == "__main__":
    main()
