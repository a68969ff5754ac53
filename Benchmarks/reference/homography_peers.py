#!/usr/bin/env python3
"""Reference homography registration for stack-bench: OpenCV ECC.

For frames 1..N of a homography burst (see Benchmarks/StackBench/Homography.swift)
estimates each frame's homography against frame 0 on the Rec. 601 luma of the
8-bit PNGs (float32 on 0..1, the same luma `HomographyRegistrar` gets) with

    cv2.findTransformECC(template=reference, input=frame, warp, cv2.MOTION_HOMOGRAPHY,
                         criteria=(EPS | COUNT, 100, 1e-6), inputMask=None, gaussFiltSize=5)

- "ecc": warp initialised with the identity; only findTransformECC is timed;
- "ecc+pc": warp initialised with the translation from cv2.phaseCorrelate
  (Hann window, same luma); time = phaseCorrelate + findTransformECC. Run for
  every frame when any identity start failed (exception, or corner RMS error
  ≥ 1 px), or always with --pc always.

Convention: ECC's warp W maps template coordinates to input coordinates,
input(W(x)) ≈ template(x). With template = reference and input = frame, and
the truth's H mapping frame → reference (frame(x) = reference(H(x))), W = H⁻¹,
so our estimate is inv(W). cv2.phaseCorrelate(reference, frame) returns the
shift s of the frame relative to the reference, frame(x) ≈ reference(x − s),
so the initial W is the translation by +s. Both signs are checked at start-up
on a synthetic shift of the reference (see sign_check) and the script exits
with status 3 if they are wrong.

Error: RMS over the 4 image corners (0,0), (w−1,0), (0,h−1), (w−1,h−1) of the
distance between their images under the estimate and under the true H.

    python3 homography_peers.py homographies.json FRAME0 FRAME1 ...
Prints {"ecc": {...}, ["ecc+pc": {...}]} as JSON on stdout; progress on stderr.
"""
import json
import statistics
import sys
import time

import cv2
import numpy as np

CRITERIA = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 100, 1e-6)


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def luma(path):
    bgr = cv2.imread(path, cv2.IMREAD_COLOR).astype(np.float32) * np.float32(1 / 255)
    return 0.299 * bgr[..., 2] + 0.587 * bgr[..., 1] + 0.114 * bgr[..., 0]


def corner_rms(a, b, w, h):
    cs = np.array([[0, 0, 1], [w - 1, 0, 1], [0, h - 1, 1], [w - 1, h - 1, 1]], dtype=np.float64).T
    pa, pb = a @ cs, b @ cs
    pa, pb = pa[:2] / pa[2], pb[:2] / pb[2]
    return float(np.sqrt(np.mean(np.sum((pa - pb) ** 2, axis=0))))


def ecc(ref, frame, init):
    """(frame → reference matrix, ok flag, seconds) for ECC from warp `init` (template → input)."""
    warp = init.astype(np.float32).copy()
    t0 = time.perf_counter()
    try:
        _, warp = cv2.findTransformECC(ref, frame, warp, cv2.MOTION_HOMOGRAPHY, CRITERIA, None, 5)
        ok = True
    except cv2.error as e:
        log("  ECC failed:", str(e).strip().splitlines()[-1])
        ok = False
    dt = time.perf_counter() - t0
    return np.linalg.inv(warp.astype(np.float64)), ok, dt


def phase_init(ref, frame, window):
    t0 = time.perf_counter()
    (sx, sy), _ = cv2.phaseCorrelate(ref, frame, window)
    dt = time.perf_counter() - t0
    return np.array([[1, 0, sx], [0, 1, sy], [0, 0, 1]], dtype=np.float64), dt


def sign_check(ref):
    """A known case: frame(x) = reference(x + d), so H (frame → reference) = translation(+d)."""
    h, w = ref.shape
    sub = np.ascontiguousarray(ref[h // 2 - 150:h // 2 + 150, w // 2 - 200:w // 2 + 200])
    d = (3.25, -2.5)
    m = np.array([[1, 0, d[0]], [0, 1, d[1]]], dtype=np.float64)
    frame = cv2.warpAffine(sub, m, (sub.shape[1], sub.shape[0]), flags=cv2.INTER_CUBIC | cv2.WARP_INVERSE_MAP,
                           borderMode=cv2.BORDER_REFLECT)
    truth = np.array([[1, 0, d[0]], [0, 1, d[1]], [0, 0, 1]], dtype=np.float64)
    est, ok, _ = ecc(sub, frame, np.eye(3))
    win = cv2.createHanningWindow((sub.shape[1], sub.shape[0]), cv2.CV_32F)
    w0, _ = phase_init(sub, frame, win)
    e_ecc = corner_rms(est, truth, sub.shape[1], sub.shape[0]) if ok else float("inf")
    e_pc = corner_rms(np.linalg.inv(w0), truth, sub.shape[1], sub.shape[0])
    log(f"sign check (shift {d}): ECC corner err {e_ecc:.4f} px, phaseCorrelate init err {e_pc:.4f} px")
    return e_ecc, e_pc


def summarise(times, errors, oks):
    return {
        "time_s_median": statistics.median(times),
        "time_s_min": min(times),
        "time_s_max": max(times),
        "corner_error_px_rms": float(np.sqrt(np.mean(np.square(errors)))),
        "corner_error_px_max": float(max(errors)),
        "frames": float(len(times)),
        "converged": float(sum(oks)),
    }


def main():
    args = sys.argv[1:]
    pc_mode = "auto"
    if args and args[0] == "--pc":
        pc_mode, args = args[1], args[2:]
    truth_path, paths = args[0], args[1:]
    with open(truth_path) as f:
        truth = [np.array(fr["H"], dtype=np.float64).reshape(3, 3) for fr in json.load(f)["frames"]]
    ref = luma(paths[0])
    h, w = ref.shape
    e_ecc, e_pc = sign_check(ref)
    if not (e_ecc < 0.1 and e_pc < 0.5):
        log("sign check failed")
        sys.exit(3)
    window = cv2.createHanningWindow((w, h), cv2.CV_32F)
    frames = [luma(p) for p in paths[1:]]

    id_t, id_e, id_ok = [], [], []
    for i, frame in enumerate(frames, start=1):
        est, ok, dt = ecc(ref, frame, np.eye(3))
        err = corner_rms(est, truth[i], w, h)
        ok = ok and err < 1.0
        id_t.append(dt); id_e.append(err); id_ok.append(ok)
        log(f"  ECC identity  frame {i}: {dt:.2f} s, corner err {err:.4f} px{'' if ok else ' (not converged)'}")
    out = {"ecc": summarise(id_t, id_e, id_ok)}
    out["ecc"]["sign_check_error_px"] = e_ecc

    if pc_mode == "always" or (pc_mode == "auto" and not all(id_ok)):
        pc_t, pc_e, pc_ok = [], [], []
        for i, frame in enumerate(frames, start=1):
            w0, dpc = phase_init(ref, frame, window)
            est, ok, dt = ecc(ref, frame, w0)
            err = corner_rms(est, truth[i], w, h)
            ok = ok and err < 1.0
            pc_t.append(dpc + dt); pc_e.append(err); pc_ok.append(ok)
            log(f"  ECC phase-init frame {i}: {dpc + dt:.2f} s (pc {dpc:.3f} s), corner err {err:.4f} px{'' if ok else ' (not converged)'}")
        out["ecc+pc"] = summarise(pc_t, pc_e, pc_ok)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
