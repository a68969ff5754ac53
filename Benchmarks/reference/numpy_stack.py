#!/usr/bin/env python3
"""Reference stack for stack-bench: the naive numpy + Pillow pipeline.

Loads every frame into one (N, H, W, 3) uint8 array, reduces along the frame
axis with np.median or np.mean, and saves an 8-bit JPEG (quality 95). No
alignment. Prints the seconds per phase (load / reduce / save) as JSON on stdout.

    python3 numpy_stack.py --mode median --output out.jpg FRAME...
"""
import argparse
import json
import time

import numpy as np
from PIL import Image


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mode", choices=["median", "mean"], default="median")
    p.add_argument("--output", required=True)
    p.add_argument("frames", nargs="+")
    a = p.parse_args()

    t0 = time.perf_counter()
    stack = np.stack([np.asarray(Image.open(f).convert("RGB")) for f in a.frames])
    t1 = time.perf_counter()
    out = np.median(stack, axis=0) if a.mode == "median" else stack.mean(axis=0)
    t2 = time.perf_counter()
    Image.fromarray(np.clip(out + 0.5, 0, 255).astype(np.uint8)).save(a.output, quality=95)
    t3 = time.perf_counter()
    print(json.dumps({"load": t1 - t0, "reduce": t2 - t1, "save": t3 - t2, "total": t3 - t0}))


if __name__ == "__main__":
    main()
