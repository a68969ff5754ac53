#!/usr/bin/env python3
"""Regenerates the committed seed corpus Fuzz/corpus/{jpeg,png}/.

Run by hand (python3 + ImageMagick `convert`), never by `make fuzz`:
    python3 Fuzz/make-seeds.py
Tiny valid files of every layout the decoders handle, plus slightly broken
variants (truncated, bad CRC, lying headers, malformed EXIF).
"""
import os, struct, subprocess, tempfile, zlib

ROOT = os.path.dirname(os.path.abspath(__file__))
JPEG = os.path.join(ROOT, "corpus", "jpeg")
PNG = os.path.join(ROOT, "corpus", "png")


def write(folder, name, data):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def convert(args, ext):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out." + ext)
        subprocess.run(["convert", *args, "-strip", out], check=True)
        return open(out, "rb").read()


# ---------------------------------------------------------------- JPEG
def tiff(order, entries, ifd_offset=8, count=None):
    """A TIFF block with IFD0 holding (tag, type, n, value) entries."""
    e = "<" if order == "II" else ">"
    out = order.encode() + struct.pack(e + "HI", 42, ifd_offset)
    out += b"\0" * (ifd_offset - len(out)) if ifd_offset >= len(out) else b""
    out += struct.pack(e + "H", len(entries) if count is None else count)
    for tag, typ, n, value in entries:
        if typ == 3:
            out += struct.pack(e + "HHIHH", tag, typ, n, value, 0)
        else:
            out += struct.pack(e + "HHII", tag, typ, n, value)
    return out + struct.pack(e + "I", 0)


def with_exif(jpeg, block):
    seg = b"Exif\0\0" + block
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(seg) + 2) + seg + jpeg[2:]


def sof_resize(jpeg, w, h):
    """Rewrites the size in the first SOF0/SOF2 header."""
    b = bytearray(jpeg)
    for m in (b"\xff\xc0", b"\xff\xc2"):
        i = b.find(m)
        if i > 0:
            b[i + 5:i + 9] = struct.pack(">HH", h, w)
            return bytes(b)
    raise SystemExit("no SOF")


def jpeg_seeds():
    grad = ["-size", "16x16", "gradient:red-blue"]
    rgb444 = convert(grad + ["-quality", "90", "-sampling-factor", "1x1"], "jpg")
    rgb420 = convert(["-size", "17x9", "plasma:", "-seed", "1", "-quality", "75", "-sampling-factor", "2x2"], "jpg")
    write(JPEG, "rgb444-16x16.jpg", rgb444)
    write(JPEG, "rgb420-17x9.jpg", rgb420)
    write(JPEG, "gray-8x8.jpg", convert(["-size", "8x8", "gradient:", "-colorspace", "Gray", "-quality", "80"], "jpg"))
    write(JPEG, "progressive-16x16.jpg", convert(grad + ["-interlace", "JPEG", "-quality", "85"], "jpg"))
    write(JPEG, "restart-16x16.jpg", convert(grad + ["-define", "jpeg:restart-interval=1"], "jpg"))
    write(JPEG, "cmyk-8x8.jpg", convert(["-size", "8x8", "xc:orange", "-colorspace", "CMYK"], "jpg"))
    # EXIF: valid orientations in both byte orders and both value types.
    write(JPEG, "exif-ii-orient6.jpg", with_exif(rgb420, tiff("II", [(0x0112, 3, 1, 6)])))
    write(JPEG, "exif-mm-orient3.jpg", with_exif(rgb444, tiff("MM", [(0x010F, 2, 4, 0), (0x0112, 3, 1, 3)])))
    write(JPEG, "exif-mm-orient8-long.jpg", with_exif(rgb420, tiff("MM", [(0x0112, 4, 1, 8)])))
    write(JPEG, "exif-ii-orient5.jpg", with_exif(rgb420, tiff("II", [(0x0112, 3, 1, 5)])))
    write(JPEG, "exif-ii-orient2.jpg", with_exif(rgb420, tiff("II", [(0x0112, 3, 1, 2)])))
    # Malformed EXIF: the pixels must still decode.
    write(JPEG, "exif-bad-orient9.jpg", with_exif(rgb444, tiff("II", [(0x0112, 3, 1, 9)])))
    write(JPEG, "exif-ifd-past-end.jpg", with_exif(rgb444, tiff("II", [(0x0112, 3, 1, 6)])[:8].replace(b"\x08\0\0\0", b"\xf0\xff\0\0")))
    write(JPEG, "exif-count-huge.jpg", with_exif(rgb444, tiff("MM", [(0x0112, 3, 1, 6)], count=0xFFFF)))
    write(JPEG, "exif-short-block.jpg", with_exif(rgb444, b"II*\0"))
    seg_bad = bytearray(with_exif(rgb444, tiff("II", [(0x0112, 3, 1, 6)])))
    seg_bad[4:6] = b"\xff\xf0"  # APP1 length past the end of the file
    write(JPEG, "exif-length-past-end.jpg", bytes(seg_bad))
    # Broken image data.
    write(JPEG, "truncated-half.jpg", rgb420[: len(rgb420) // 2])  # inside the tables
    write(JPEG, "truncated-scan.jpg", rgb420[:-20])  # inside the scan
    write(JPEG, "truncated-header.jpg", rgb420[:40])
    flipped = bytearray(rgb444)
    flipped[-20] ^= 0x55
    write(JPEG, "flipped-scan.jpg", bytes(flipped))
    write(JPEG, "sof-bomb-65535.jpg", sof_resize(rgb420, 65535, 65535))  # libjpeg's own limit
    write(JPEG, "sof-bomb-60000.jpg", sof_resize(rgb420, 60000, 60000))  # our maxPixels
    write(JPEG, "sof-zero-width.jpg", sof_resize(rgb420, 0, 9))
    write(JPEG, "sof-larger-than-data.jpg", sof_resize(rgb420, 400, 300))
    write(JPEG, "soi-only.jpg", b"\xff\xd8\xff\xd9")


# ---------------------------------------------------------------- PNG
SIG = b"\x89PNG\r\n\x1a\n"


def chunk(kind, data, crc=None):
    c = zlib.crc32(kind + data) & 0xFFFFFFFF if crc is None else crc
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", c)


def png(w, h, depth, ctype, rows=None, extra=b"", interlace=0, ihdr_size=None):
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    rowbytes = (w * channels * depth + 7) // 8
    if rows is None:
        rows = b"".join(b"\0" + bytes((x * 37 + y * 11) & 0xFF for x in range(rowbytes)) for y in range(h))
    iw, ih = ihdr_size or (w, h)
    out = SIG + chunk(b"IHDR", struct.pack(">IIBBBBB", iw, ih, depth, ctype, 0, 0, interlace))
    if ctype == 3:
        out += chunk(b"PLTE", bytes(i * 17 % 256 for i in range(3 * 16)))
    out += extra
    out += chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")
    return out


def png_seeds():
    write(PNG, "gray8-8x8.png", png(8, 8, 8, 0))
    write(PNG, "gray1-9x3.png", png(9, 3, 1, 0))
    write(PNG, "gray2-5x4.png", png(5, 4, 2, 0))
    write(PNG, "gray4-7x2.png", png(7, 2, 4, 0))
    write(PNG, "gray16-4x4.png", png(4, 4, 16, 0))
    write(PNG, "rgb8-6x5.png", png(6, 5, 8, 2))
    write(PNG, "rgb16-3x3.png", png(3, 3, 16, 2))
    write(PNG, "palette4-8x4.png", png(8, 4, 4, 3, extra=chunk(b"tRNS", b"\x00\x80")))
    write(PNG, "graya8-4x4.png", png(4, 4, 8, 4))
    write(PNG, "rgba16-2x2.png", png(2, 2, 16, 6))
    write(PNG, "gray8-trns.png", png(4, 4, 8, 0, extra=chunk(b"tRNS", b"\x00\x10")))
    write(PNG, "rgb8-exif.png", png(4, 4, 8, 2, extra=chunk(b"eXIf", tiff("II", [(0x0112, 3, 1, 6)]))))
    write(PNG, "interlaced-rgb-16x16.png", convert(["-size", "16x16", "gradient:red-blue", "-interlace", "PNG", "-depth", "8"], "png"))
    write(PNG, "interlaced-gray16-9x7.png", convert(["-size", "9x7", "gradient:", "-colorspace", "Gray", "-interlace", "PNG", "-depth", "16"], "png"))
    # Broken.
    good = png(8, 8, 8, 2)
    write(PNG, "truncated-idat.png", good[: len(good) - 30])
    write(PNG, "truncated-ihdr.png", good[:20])
    write(PNG, "signature-only.png", SIG)
    i = good.find(b"IDAT")
    bad = bytearray(good)
    bad[i + 4 + struct.unpack(">I", good[i - 4:i])[0]] ^= 0xFF  # the IDAT CRC itself
    write(PNG, "idat-crc.png", bytes(bad))
    bad = bytearray(good)
    bad[i + 6] ^= 0xFF  # a byte of the zlib stream (inflate fails before the CRC is checked)
    write(PNG, "idat-data-flipped.png", bytes(bad))
    write(PNG, "ihdr-crc.png", SIG + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 8, 2, 0, 0, 0), crc=0) + good[33:])
    write(PNG, "ihdr-bomb.png", png(8, 8, 8, 2, ihdr_size=(100000, 100000)))
    write(PNG, "ihdr-zero.png", png(8, 8, 8, 2, ihdr_size=(0, 8)))
    write(PNG, "ihdr-bad-colortype.png", SIG + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 8, 5, 0, 0, 0)) + good[33:])
    write(PNG, "ihdr-bad-depth.png", SIG + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 3, 0, 0, 0, 0)) + good[33:])
    write(PNG, "rows-missing.png", png(8, 8, 8, 2, rows=b"\0" * 25 * 3))
    write(PNG, "bad-filter.png", png(4, 4, 8, 0, rows=b"\x09\1\2\3\4" * 4))
    write(PNG, "no-iend.png", good[:-12])
    write(PNG, "palette-missing.png", SIG + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 3, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(b"\0\1\2\3\4" * 4)) + chunk(b"IEND", b""))


if __name__ == "__main__":
    jpeg_seeds()
    png_seeds()
