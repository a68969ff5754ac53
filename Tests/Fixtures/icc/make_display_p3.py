#!/usr/bin/env python3
"""Writes the Display P3 ICC profiles the metadata tests embed.

display-p3.icc        ICC v4 RGB display profile, matrix/TRC: the DCI-P3
                      primaries with a D65 white (Display P3), colorants
                      adapted to the D50 PCS with the Bradford transform,
                      a chad tag holding that adaptation, and the sRGB tone
                      curve as a parametric curve (type 3). About 0.6 KB.
display-p3-large.icc  The same profile with its tone curves as 32 768-entry
                      sampled curves: about 197 KB, so a JPEG needs four
                      APP2 segments to hold it.

Both have the description "Display P3". Run from anywhere:
    python3 Tests/Fixtures/icc/make_display_p3.py
The output is deterministic (no dates other than the fixed one below).
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

# CIE xy chromaticities (SMPTE EG 432-1 primaries, D65 white).
PRIMARIES = [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)]
WHITE_D65 = (0.3127, 0.3290)
D50 = (0.9642, 1.0, 0.8249)  # the ICC PCS white, as ICC.1 states it

BRADFORD = [[0.8951, 0.2664, -0.1614],
            [-0.7502, 1.7135, 0.0367],
            [0.0389, -0.0685, 1.0296]]


def mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def mulv(a, v):
    return [sum(a[i][k] * v[k] for k in range(3)) for i in range(3)]


def inverse(m):
    a, b, c = m[0]
    d, e, f = m[1]
    g, h, i = m[2]
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    return [[(e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det],
            [(f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det],
            [(d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det]]


def xyz(xy):
    x, y = xy
    return [x / y, 1.0, (1 - x - y) / y]


def rgb_to_xyz_d65():
    """The matrix from linear RGB to XYZ (D65), columns scaled so that
    RGB = 1 gives the white."""
    columns = [xyz(p) for p in PRIMARIES]
    m = [[columns[j][i] for j in range(3)] for i in range(3)]
    s = mulv(inverse(m), xyz(WHITE_D65))
    return [[m[i][j] * s[j] for j in range(3)] for i in range(3)]


def adaptation_d65_to_d50():
    src = mulv(BRADFORD, xyz(WHITE_D65))
    dst = mulv(BRADFORD, list(D50))
    scale = [[dst[i] / src[i] if i == j else 0.0 for j in range(3)] for i in range(3)]
    return mul(inverse(BRADFORD), mul(scale, BRADFORD))


def s15f16(v):
    return struct.pack(">i", int(round(v * 65536)))


def xyz_tag(v):
    return b"XYZ " + b"\0" * 4 + b"".join(s15f16(c) for c in v)


def mluc(text):
    encoded = text.encode("utf-16-be")
    return (b"mluc" + b"\0" * 4 + struct.pack(">II", 1, 12) + b"enUS"
            + struct.pack(">II", len(encoded), 28) + encoded)


def sf32(m):
    return b"sf32" + b"\0" * 4 + b"".join(s15f16(m[i][j]) for i in range(3) for j in range(3))


def para_srgb():
    # Type 3: Y = (aX + b)^g for X >= d, else cX (the sRGB curve).
    params = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
    return b"para" + b"\0" * 4 + struct.pack(">HH", 3, 0) + b"".join(s15f16(p) for p in params)


def curv_srgb(n):
    def f(x):
        return ((x + 0.055) / 1.055) ** 2.4 if x >= 0.04045 else x / 12.92
    values = [int(round(f(i / (n - 1)) * 65535)) for i in range(n)]
    return b"curv" + b"\0" * 4 + struct.pack(">I", n) + struct.pack(">%dH" % n, *values)


def pad4(b):
    return b + b"\0" * (-len(b) % 4)


def profile(trc):
    adapt = adaptation_d65_to_d50()
    colorants = mul(adapt, rgb_to_xyz_d65())
    tags = [
        (b"desc", mluc("Display P3")),
        (b"cprt", mluc("No copyright, use freely")),
        (b"wtpt", xyz_tag(D50)),
        (b"chad", sf32(adapt)),
        (b"rXYZ", xyz_tag([colorants[i][0] for i in range(3)])),
        (b"gXYZ", xyz_tag([colorants[i][1] for i in range(3)])),
        (b"bXYZ", xyz_tag([colorants[i][2] for i in range(3)])),
        (b"rTRC", trc),
        (b"gTRC", trc),
        (b"bTRC", trc),
    ]
    offset = 128 + 4 + 12 * len(tags)
    entries, data = [], b""
    for sig, body in tags:
        entries.append((sig, offset + len(data), len(body)))
        data += pad4(body)
    table = struct.pack(">I", len(entries)) + b"".join(struct.pack(">4sII", *e) for e in entries)
    size = 128 + len(table) + len(data)
    header = (struct.pack(">I", size) + b"\0\0\0\0" + bytes([4, 0x30, 0, 0]) + b"mntr" + b"RGB " + b"XYZ "
              + struct.pack(">6H", 2026, 12, 5, 0, 0, 0) + b"acsp" + b"\0" * 4
              + struct.pack(">I", 0) + b"\0" * 8 + b"\0" * 8 + struct.pack(">I", 0)
              + b"".join(s15f16(c) for c in D50) + b"\0" * 4 + b"\0" * 16 + b"\0" * 28)
    assert len(header) == 128, len(header)
    return header + table + data


def main():
    for name, trc in (("display-p3.icc", para_srgb()), ("display-p3-large.icc", curv_srgb(32768))):
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(profile(trc))


if __name__ == "__main__":
    main()
