#!/usr/bin/env python3
"""Regenerates the generated seeds of Fuzz/corpus/{jpeg,png,tiff,fits,heif,ser,exif,registration}/.

Run by hand, never by `make fuzz`:
    python3 Fuzz/make-seeds.py              # every format (JPEG and PNG need ImageMagick `convert`)
    python3 Fuzz/make-seeds.py tiff fits    # only those (plain python3)
    python3 Fuzz/make-seeds.py heif ser     # heif needs ImageMagick and heif-enc
                                            # (libheif-examples); ser plain python3
    python3 Fuzz/make-seeds.py exif registration   # the tagged modes (plain python3;
                                                   # exif reuses corpus/jpeg's EXIF seeds)
Tiny valid files of every layout the decoders handle, plus slightly broken
variants (truncated, bad CRC, lying headers, malformed EXIF / IFDs / cards).
"""
import os, struct, subprocess, sys, tempfile, zlib

ROOT = os.path.dirname(os.path.abspath(__file__))
JPEG = os.path.join(ROOT, "corpus", "jpeg")
PNG = os.path.join(ROOT, "corpus", "png")
TIFF = os.path.join(ROOT, "corpus", "tiff")
FITS = os.path.join(ROOT, "corpus", "fits")
HEIF = os.path.join(ROOT, "corpus", "heif")
SER = os.path.join(ROOT, "corpus", "ser")
EXIF = os.path.join(ROOT, "corpus", "exif")
REGISTRATION = os.path.join(ROOT, "corpus", "registration")


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


# ---------------------------------------------------------------- TIFF
def packbits(data):
    """PackBits with literal runs only (valid, if not compact)."""
    out = b""
    for i in range(0, len(data), 128):
        chunk = data[i:i + 128]
        out += bytes([len(chunk) - 1]) + chunk
    return out


def tiff_file(w, h, spp, bits, photometric, samples=None, fmt=1, planar=1, tile=None, rps=None,
              order="II", compression=1, predictor=1, extra=None, size=None, colormap=False):
    """A TIFF with one IFD. samples[s][y*w+x] are raw values (floats for fmt 3)."""
    e = "<" if order == "II" else ">"
    if samples is None:
        samples = [[(x * 37 + y * 11 + s * 101) % (1 << min(bits, 16)) for y in range(h) for x in range(w)] for s in range(spp)]
    code = {8: "B", 16: "H", 32: "f" if fmt == 3 else "I"}.get(bits)
    separate = planar == 2
    per = 1 if separate else spp
    cw, ch = tile or (w, rps or h)
    across, down = (w + cw - 1) // cw, (h + ch - 1) // ch
    out = bytearray(order.encode() + struct.pack(e + "HI", 42, 0))
    offsets, counts = [], []
    for plane in range(spp if separate else 1):
        for idx in range(across * down):
            x0, y0 = (idx % across) * cw, (idx // across) * ch
            rows = ch if tile else min(ch, h - y0)
            if code is None:
                raw = bytes((cw * per * bits + 7) // 8 * rows)
            else:
                vals = []
                for y in range(y0, y0 + rows):
                    row = []
                    for x in range(x0, x0 + cw):
                        for k in range(per):
                            sample = plane if separate else k
                            row.append(samples[sample][y * w + x] if x < w and y < h else 0)
                    if predictor == 2:
                        row = [row[i] if i < per else (row[i] - row[i - per]) % (1 << bits) for i in range(len(row))]
                    vals += row
                raw = struct.pack(e + code * len(vals), *vals)
            data = zlib.compress(raw) if compression == 8 else packbits(raw) if compression == 32773 else raw
            offsets.append(len(out))
            counts.append(len(data))
            out += data
    if len(out) % 2:
        out += b"\0"
    sw, sh = size or (w, h)
    entries = [(256, 4, [sw]), (257, 4, [sh]), (258, 3, [bits] * spp), (259, 3, [compression]),
               (262, 3, [photometric]), (277, 3, [spp]), (284, 3, [planar]), (339, 3, [fmt] * spp)]
    if predictor != 1:
        entries.append((317, 3, [predictor]))
    if tile:
        entries += [(322, 4, [tile[0]]), (323, 4, [tile[1]]), (324, 4, offsets), (325, 4, counts)]
    else:
        entries += [(273, 4, offsets), (278, 4, [ch]), (279, 4, counts)]
    if colormap:
        entries.append((320, 3, [0x8000] * (3 << bits)))
    if extra:
        entries.append((338, 3, extra))
    entries.sort()
    ifd = len(out)
    out[4:8] = struct.pack(e + "I", ifd)
    extra_start = ifd + 2 + 12 * len(entries) + 4
    blob = b""
    out += struct.pack(e + "H", len(entries))
    for tag, typ, vals in entries:
        c = "H" if typ == 3 else "I"
        packed = struct.pack(e + c * len(vals), *vals)
        if len(packed) <= 4:
            out += struct.pack(e + "HHI", tag, typ, len(vals)) + packed + b"\0" * (4 - len(packed))
        else:
            out += struct.pack(e + "HHII", tag, typ, len(vals), extra_start + len(blob))
            blob += packed
    return bytes(out + struct.pack(e + "I", 0) + blob)


def tiff_seeds():
    write(TIFF, "gray8-strips-9x7.tif", tiff_file(9, 7, 1, 8, 1, rps=3))
    write(TIFF, "rgb16-deflate-pred-8x6.tif", tiff_file(8, 6, 3, 16, 2, compression=8, predictor=2, rps=2))
    write(TIFF, "rgb8-packbits-7x5.tif", tiff_file(7, 5, 3, 8, 2, compression=32773))
    write(TIFF, "rgba16-separate-6x4.tif", tiff_file(6, 4, 4, 16, 2, planar=2, extra=[2], rps=3))
    write(TIFF, "graya8-tiled-20x18.tif", tiff_file(20, 18, 2, 8, 1, tile=(16, 16), extra=[1]))
    write(TIFF, "float32-mm-tiled-5x3.tif", tiff_file(5, 3, 1, 32, 1, fmt=3, tile=(16, 16), order="MM",
                                                      samples=[[i / 7 - 0.5 for i in range(15)]]))
    write(TIFF, "rgb8-deflate-tiled-separate-17x17.tif", tiff_file(17, 17, 3, 8, 2, planar=2, tile=(16, 16), compression=8))
    write(TIFF, "rgb16-mm-4x4.tif", tiff_file(4, 4, 3, 16, 2, order="MM"))
    # Refused layouts.
    write(TIFF, "palette8.tif", tiff_file(4, 4, 1, 8, 3, colormap=True))
    write(TIFF, "cmyk8.tif", tiff_file(4, 4, 4, 8, 5))
    write(TIFF, "bits1.tif", tiff_file(8, 2, 1, 1, 1))
    write(TIFF, "bits12.tif", tiff_file(4, 2, 1, 12, 1))
    write(TIFF, "signed16.tif", tiff_file(4, 4, 1, 16, 1, fmt=2))
    # Broken.
    good = tiff_file(8, 6, 3, 16, 2, compression=8, predictor=2, rps=2)
    write(TIFF, "truncated-half.tif", good[: len(good) // 2])
    write(TIFF, "header-only.tif", good[:8])
    bogus = bytearray(good)
    bogus[4:8] = struct.pack("<I", 0x7FFFFF00)
    write(TIFF, "ifd-bogus-offset.tif", bytes(bogus))
    write(TIFF, "bomb-100000.tif", tiff_file(4, 3, 1, 8, 1, size=(100000, 100000)))
    write(TIFF, "zero-width.tif", tiff_file(4, 3, 1, 8, 1, size=(0, 3)))
    tiled = tiff_file(4, 4, 1, 8, 1, tile=(16, 16))
    write(TIFF, "tile-huge.tif", tiled.replace(struct.pack("<HHII", 322, 4, 1, 16), struct.pack("<HHII", 322, 4, 1, 16 << 16)))
    plain = tiff_file(6, 4, 1, 8, 1)
    write(TIFF, "strip-count-lie.tif", plain.replace(struct.pack("<HHII", 279, 4, 1, 24), struct.pack("<HHII", 279, 4, 1, 0x7FFFFFF0)))
    write(TIFF, "strip-offset-past-end.tif", plain.replace(struct.pack("<HHII", 273, 4, 1, 8), struct.pack("<HHII", 273, 4, 1, 0x10000)))


# ---------------------------------------------------------------- FITS
def card(name, value=None, comment=None):
    text = name.ljust(8) if value is None else name.ljust(8) + "= " + str(value).rjust(20)
    if comment:
        text += " / " + comment
    return text[:80].ljust(80)


def fits_file(bitpix, axes, data=b"", extra=(), end=True, pad=True):
    cards = [card("SIMPLE", "T"), card("BITPIX", bitpix), card("NAXIS", len(axes))]
    cards += [card("NAXIS%d" % (i + 1), n) for i, n in enumerate(axes)]
    cards += list(extra)
    if end:
        cards.append("END".ljust(80))
    head = "".join(cards).encode()
    if pad:
        head += b" " * (-len(head) % 2880)
        data += b"\0" * (-len(data) % 2880)
    return head + data


def fits_seeds():
    n = 6 * 4
    write(FITS, "gray8-6x4.fits", fits_file(8, [6, 4], bytes(range(0, 240, 10))))
    u16 = struct.pack(">" + "h" * n, *[(i * 2731) - 32768 for i in range(n)])
    write(FITS, "gray16-bzero-6x4.fits", fits_file(16, [6, 4], u16, [card("BZERO", 32768), card("BSCALE", 1)]))
    write(FITS, "rgb16-bzero-6x4x3.fits", fits_file(16, [6, 4, 3], u16 * 3, [card("BZERO", 32768)]))
    write(FITS, "float32-rgb-3x2x3.fits", fits_file(-32, [3, 2, 3], struct.pack(">" + "f" * 18, *[i / 9 - 0.5 for i in range(18)])))
    write(FITS, "float64-3x2.fits", fits_file(-64, [3, 2], struct.pack(">" + "d" * 6, 0.5, 1, 1.5, 2, -1, 0)))
    write(FITS, "int32-bzero-3x2.fits", fits_file(32, [3, 2], struct.pack(">" + "i" * 6, -2**31, 2**31 - 1, 0, 5, 6, 7), [card("BZERO", 2147483648)]))
    write(FITS, "signed16-3x2.fits", fits_file(16, [3, 2], struct.pack(">" + "h" * 6, -32768, -1, 0, 1, 32767, 100)))
    write(FITS, "naxis3-1-3x2x1.fits", fits_file(8, [3, 2, 1], bytes(6)))
    keys = [card("EXPTIME", "300.", "[s]"), card("DATE-OBS", "'2024-03-01T22:14:05'"), card("OBJECT", "'M 31 ''And'''"),
            card("GAIN", 100), card("CCD-TEMP", "-10.5"), card("XBINNING", 2), card("FILTER", "'Ha      '")]
    write(FITS, "keywords-gray16-4x4.fits", fits_file(16, [4, 4], bytes(32), [card("BZERO", 32768)] + keys))
    # Refused / broken.
    good = fits_file(16, [6, 4, 3], u16 * 3, [card("BZERO", 32768)])
    write(FITS, "truncated-data.fits", good[: 2880 + 50])
    write(FITS, "truncated-header.fits", good[:500])
    write(FITS, "naxis0.fits", fits_file(16, []))
    write(FITS, "naxis3-5.fits", fits_file(16, [4, 4, 5], bytes(160)))
    write(FITS, "naxis1.fits", fits_file(16, [4], bytes(8)))
    write(FITS, "bomb-100000.fits", fits_file(16, [100000, 100000], bytes(64)))
    write(FITS, "no-end.fits", fits_file(8, [2, 2], bytes(4), end=False))
    write(FITS, "bitpix64.fits", fits_file(64, [2, 2], bytes(32)))
    write(FITS, "bitpix-bad.fits", fits_file(12, [2, 2], bytes(8)))
    write(FITS, "naxis1-negative.fits", fits_file(8, [-3, 2], bytes(8)))
    write(FITS, "unpadded-4x4.fits", fits_file(8, [4, 4], bytes(16), pad=False))


# ---------------------------------------------------------------- HEIF
def gradient_png(w, h, seed=0, depth=8, gray=False):
    """A PNG of a smooth colour gradient (plain python, `png` above)."""
    channels = 1 if gray else 3
    scale = 255 if depth == 8 else 65535
    rows = b""
    for y in range(h):
        values = []
        for x in range(w):
            rgb = ((x * scale) // max(1, w - 1), (y * scale) // max(1, h - 1), ((x + y + seed * 5) % (w + h) * scale) // (w + h))
            values += rgb[:channels]
        rows += b"\0" + (bytes(values) if depth == 8 else struct.pack(">" + "H" * len(values), *values))
    return png(w, h, depth, 0 if gray else 2, rows=rows)


def heif_enc(images, args=(), ext="heic"):
    """heif-enc (Debian libheif-examples) of the PNG files `images`, all into
    one file (a burst when there are several)."""
    with tempfile.TemporaryDirectory() as d:
        inputs = []
        for i, data in enumerate(images):
            path = os.path.join(d, f"in{i}.png")
            open(path, "wb").write(data)
            inputs.append(path)
        out = os.path.join(d, "out." + ext)
        subprocess.run(["heif-enc", *args, "-o", out, *inputs], check=True, stdout=subprocess.DEVNULL)
        return open(out, "rb").read()


def heif_seeds():
    grad = gradient_png
    write(HEIF, "heic-8bit-16x16.heic", heif_enc([grad(16, 16)], ["-q", "50"]))
    write(HEIF, "heic-8bit-odd-17x11.heic", heif_enc([grad(17, 11, 1)], ["-q", "50"]))
    write(HEIF, "heic-444-16x8.heic", heif_enc([grad(16, 8)], ["-q", "90", "-p", "chroma=444"]))
    write(HEIF, "heic-lossless-8x8.heic", heif_enc([grad(8, 8)], ["-L", "-p", "chroma=444"]))
    write(HEIF, "heic-10bit-16x16.heic", heif_enc([grad(16, 16, depth=16)], ["-q", "50", "-b", "10"]))
    write(HEIF, "heic-gray-16x16.heic", heif_enc([grad(16, 16, gray=True)], ["-q", "50"]))
    write(HEIF, "heic-thumbnail-32x32.heic", heif_enc([grad(32, 32)], ["-q", "40", "-t", "8"]))
    burst = heif_enc([grad(16, 16, seed) for seed in range(3)], ["-q", "40"])
    write(HEIF, "heic-burst-3x16x16.heic", burst)
    write(HEIF, "heic-mixed-sizes-16x16-8x8.heic", heif_enc([grad(16, 16), grad(8, 8)], ["-q", "40"]))
    write(HEIF, "avif-8bit-16x16.avif", heif_enc([grad(16, 16)], ["-q", "50"], ext="avif"))
    # Broken.
    good = open(os.path.join(HEIF, "heic-8bit-16x16.heic"), "rb").read()
    write(HEIF, "heic-truncated-half.heic", good[: len(good) // 2])
    write(HEIF, "heic-truncated-ftyp-only.heic", good[:32])
    write(HEIF, "burst-truncated-last-frame.heic", burst[: len(burst) - 40])
    flipped = bytearray(good)
    for i in range(40, len(flipped), 37):
        flipped[i] ^= 0x10
    write(HEIF, "heic-flipped-bits.heic", bytes(flipped))
    # heif-enc stores even a small image as a grid of one 64 × 64 tile: the
    # grid's ispe (the last) claiming 5000² is over the fuzz pixel limit and
    # refused by our check; the tile's (the first) claiming 60000² passes
    # libheif's own 32768 per side.
    def with_ispe(at, side):
        return good[: at + 8] + struct.pack(">II", side, side) + good[at + 16:]
    write(HEIF, "heic-grid-ispe-5000x5000.heic", with_ispe(good.rfind(b"ispe"), 5000))
    write(HEIF, "heic-tile-ispe-60000x60000.heic", with_ispe(good.find(b"ispe"), 60000))


# ---------------------------------------------------------------- SER
def ser_file(w, h, frames, colour=0, depth=8, little=0, data=None, count=None, trailer=False):
    """A SER video: 178-byte LUCAM-RECORDER header, frames, optional
    timestamps. `little` is the header's LittleEndian field as writers use it
    (0: little-endian samples)."""
    channels = 3 if colour in (100, 101) else 1
    size = 2 if depth > 8 else 1
    if data is None:
        n = w * h * channels * frames
        if size == 1:
            data = bytes((i * 7 + i // w) & 0xFF for i in range(n))
        else:
            data = struct.pack(("<" if little == 0 else ">") + "H" * n, *[(i * 2731) & 0xFFFF for i in range(n)])
    head = b"LUCAM-RECORDER" + struct.pack("<iiiiiii", 0, colour, little, w, h, depth, frames if count is None else count)
    head += b"observer".ljust(40, b"\0") + b"camera".ljust(40, b"\0") + b"telescope".ljust(40, b"\0")
    head += struct.pack("<qq", 638400000000000000, 638400000000000000)
    assert len(head) == 178
    tail = b"".join(struct.pack("<q", 638400000000000000 + i) for i in range(frames)) if trailer else b""
    return head + data + tail


def ser_seeds():
    write(SER, "mono8-8x6x4.ser", ser_file(8, 6, 4))
    write(SER, "mono16-le-8x6x3.ser", ser_file(8, 6, 3, depth=16))
    write(SER, "mono12-be-8x6x2.ser", ser_file(8, 6, 2, depth=12, little=1))
    write(SER, "rggb8-8x6x3-trailer.ser", ser_file(8, 6, 3, colour=8, trailer=True))
    write(SER, "bggr16-8x6x2.ser", ser_file(8, 6, 2, colour=11, depth=16))
    write(SER, "rgb8-6x4x2.ser", ser_file(6, 4, 2, colour=100))
    write(SER, "bgr16-6x4x2.ser", ser_file(6, 4, 2, colour=101, depth=16))
    write(SER, "mono8-1x1x200.ser", ser_file(1, 1, 200))
    # Broken.
    good = ser_file(8, 6, 4)
    write(SER, "truncated-header.ser", good[:100])
    write(SER, "truncated-data.ser", good[: 178 + 8 * 6 * 3 + 5])
    write(SER, "count-0.ser", ser_file(8, 6, 1, count=0))
    write(SER, "count-huge.ser", ser_file(8, 6, 1, count=0x7FFFFFFF))
    write(SER, "count-negative.ser", ser_file(8, 6, 1, count=-1))
    write(SER, "colour-cmy-16.ser", ser_file(8, 6, 1, colour=16))
    write(SER, "depth-0.ser", ser_file(8, 6, 1, depth=0, data=bytes(48)))
    write(SER, "depth-17.ser", ser_file(8, 6, 1, depth=17, data=bytes(96)))
    write(SER, "width-0.ser", ser_file(0, 6, 1, data=b""))
    write(SER, "width-negative.ser", ser_file(-8, 6, 1, data=bytes(48)))
    # width × height × 3 × 2 past Int64 (both sides at Int32.max).
    write(SER, "rgb16-size-overflow.ser", ser_file(0x7FFFFFFF, 0x7FFFFFFF, 1, colour=100, depth=16, data=bytes(64)))
    write(SER, "bomb-40000x40000.ser", ser_file(40000, 40000, 1, data=bytes(64)))


# ---------------------------------------------------------------- EXIF mode
def exif_seeds():
    """`SEXF` + a bare TIFF block or a JPEG (see Fuzz/FuzzEXIF.swift)."""
    tag = b"SEXF"
    blocks = {
        "ii-orient6": tiff("II", [(0x0112, 3, 1, 6)]),
        "mm-orient8-long": tiff("MM", [(0x0112, 4, 1, 8)]),
        "mm-two-entries": tiff("MM", [(0x010F, 2, 4, 0), (0x0112, 3, 1, 3)]),
        "ii-orient0": tiff("II", [(0x0112, 3, 1, 0)]),
        "ii-orient-ascii": tiff("II", [(0x0112, 2, 1, 5)]),
        "ii-no-orient": tiff("II", [(0x010F, 2, 4, 0)]),
        "ii-ifd-at-40": tiff("II", [(0x0112, 3, 1, 7)], ifd_offset=40),
        "mm-count-huge": tiff("MM", [(0x0112, 3, 1, 6)], count=0xFFFF),
        "ii-ifd-past-end": tiff("II", [(0x0112, 3, 1, 6)])[:8].replace(b"\x08\0\0\0", b"\xf0\xff\0\0"),
        "header-only": b"II*\0",
    }
    for name, block in blocks.items():
        write(EXIF, "block-" + name + ".bin", tag + block)
    for name in sorted(os.listdir(JPEG)):
        if name.startswith("exif-"):
            write(EXIF, "jpeg-" + name[:-4] + ".bin", tag + open(os.path.join(JPEG, name), "rb").read())


# ---------------------------------------------------------------- registration mode
def registration_seeds():
    """`SREG` + sizes, flags, scale, offset and 8-bit samples of a reference
    and a frame (see Fuzz/FuzzRegistration.swift): shifted noise texture,
    star fields, blank planes, too-small and mismatched sizes, for each
    registrar (flags & 3: translation float / 8-bit, homography, stars)."""
    import random
    rnd = random.Random(7)

    def header(w, h, flags, fw=0, fh=0, exp=20, offset=0, choices=0o23):
        # choices 0o23: upsample factor 10, 3 homography iterations per level
        return b"SREG" + bytes([w - 1, h - 1, flags, max(fw - 1, 0), max(fh - 1, 0), exp, offset, choices])

    def texture(w, h):
        base = [[rnd.randrange(256) for _ in range(w + 8)] for _ in range(h + 8)]
        # a 3×3 box blur: correlated texture, as real frames have
        return [[sum(base[y + j][x + i] for j in range(3) for i in range(3)) // 9
                 for x in range(w + 6)] for y in range(h + 6)]

    def crop(t, x0, y0, w, h):
        return bytes(t[y0 + y][x0 + x] for y in range(h) for x in range(w))

    def stars(w, h, positions, shift=(0.0, 0.0)):
        import math
        px = [[10 + rnd.randrange(6) for _ in range(w)] for _ in range(h)]
        for sx, sy, amp in positions:
            cx, cy = sx + shift[0], sy + shift[1]
            for y in range(h):
                for x in range(w):
                    r2 = (x - cx) ** 2 + (y - cy) ** 2
                    if r2 < 25:
                        px[y][x] = min(255, px[y][x] + int(amp * math.exp(-r2 / 2.5)))
        return bytes(v for row in px for v in row)

    for w, h in ((16, 16), (32, 32), (64, 48), (20, 64)):
        t = texture(w, h)
        ref, frm = crop(t, 3, 3, w, h), crop(t, 5, 2, w, h)
        for reg in range(3):
            write(REGISTRATION, f"texture-{w}x{h}-reg{reg}.bin", header(w, h, reg) + ref + frm)
    t = texture(32, 32)
    write(REGISTRATION, "texture-32x32-scaled-up.bin", header(32, 32, 0, exp=40, offset=128) + crop(t, 3, 3, 32, 32) + crop(t, 4, 4, 32, 32))
    write(REGISTRATION, "texture-32x32-scaled-down.bin", header(32, 32, 2, exp=0, choices=0o76) + crop(t, 3, 3, 32, 32) + crop(t, 4, 4, 32, 32))
    for w, h, n in ((32, 32, 12), (64, 64, 30), (48, 40, 20)):
        pos = [(3 + rnd.random() * (w - 6), 3 + rnd.random() * (h - 6), 80 + rnd.randrange(170)) for _ in range(n)]
        ref, frm = stars(w, h, pos), stars(w, h, pos, shift=(1.3, -0.7))
        write(REGISTRATION, f"stars-{w}x{h}-similarity.bin", header(w, h, 3) + ref + frm)
        write(REGISTRATION, f"stars-{w}x{h}-affine.bin", header(w, h, 3 | 4) + ref + frm)
    for reg in range(4):
        write(REGISTRATION, f"blank-24x24-reg{reg}.bin", header(24, 24, reg))
        write(REGISTRATION, f"too-small-8x40-reg{reg}.bin", header(8, 40, reg) + bytes(rnd.randrange(256) for _ in range(640)))
        write(REGISTRATION, f"mismatch-32x32-vs-30x32-reg{reg}.bin",
              header(32, 32, reg | 8, 30, 32) + bytes(rnd.randrange(256) for _ in range(32 * 32 + 30 * 32)))
    write(REGISTRATION, "short-cycled-16x16.bin", header(16, 16, 0) + bytes(range(0, 256, 7)))


SEEDS = {"jpeg": jpeg_seeds, "png": png_seeds, "tiff": tiff_seeds, "fits": fits_seeds,
         "heif": heif_seeds, "ser": ser_seeds, "exif": exif_seeds, "registration": registration_seeds}

if __name__ == "__main__":
    for name in sys.argv[1:] or list(SEEDS):
        SEEDS[name]()
