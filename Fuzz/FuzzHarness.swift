// libFuzzer entry point for stack's image decoders (and, for inputs tagged
// `SEXF` or `SREG`, the EXIF and registration modes in FuzzEXIF.swift and
// FuzzRegistration.swift).
//
// Not part of the Swift package: Fuzz/fuzz.mk compiles this file together
// with the sources of the Stacker module (as module `Stacker`, so internal
// symbols such as `EXIF` and `TIFFReader` are visible) and links the
// Registration module built separately. See docs/fuzzing.md.
//
// Each input (and, for a PNG, a copy with its chunk CRCs recomputed) goes
// through:
//  1. `ImageFile.decode(bytes:path:maxPixels:)` — the real read path: magic
//     detection, EXIF orientation, TurboJPEG, libpng (CPNG/shim.h), libtiff
//     (CTIFF/shim.h) or cfitsio (CFITSIO/include/shim.h), pixel conversion,
//     orientation / FITS row flip. It must return or throw `StackerError`.
//     A decoded FITS file is encoded again (32-bit float, with its keywords)
//     and must decode to the same pixels and keywords. For a JPEG, the
//     pipeline's 8-bit forms (`JPEGCodec.decodeBytes`, `decodeYCbCr`) must
//     decode or refuse too, and agree with it on size.
//  2. The header-only path used by `ImageFile.readHeader` (every format);
//     when decoding worked, it must report the same size and channels.
//  3. The EXIF parser directly: `EXIF.read(jpeg:)` on the input, and
//     `TIFFReader` on the raw input (so mutations reach the TIFF/IFD parser
//     without having to keep a valid JPEG framing around it).
//  4. A round-trip property: a TIFF block inserted with `EXIF.insert` is
//     found again, byte for byte, by `EXIF.payload`.
// Any other outcome (a crash, a non-StackerError, a broken property) aborts,
// which libFuzzer reports as a crash.

/// Pixel limit for fuzzing: small enough that a lying header cannot make one
/// execution allocate hundreds of MB, large enough for every seed.
let fuzzMaxPixels = 1 << 22  // 4 Mpx

/// A minimal JPEG framing (SOI + EOI) used for the EXIF round-trip property.
let fuzzBareJPEG: [UInt8] = [0xFF, 0xD8, 0xFF, 0xD9]

@_cdecl("LLVMFuzzerTestOneInput")
public func stackFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    if let only = fuzzOnlyFormat, !only(bytes) { return 0 }  // a heif or ser run (FuzzFrameSequences.swift)
    // Tagged inputs select the other modes (Fuzz/FuzzEXIF.swift,
    // Fuzz/FuzzRegistration.swift); every other input is a file to decode.
    if bytes.starts(with: fuzzEXIFTag) {
        fuzzEXIF(bytes[fuzzEXIFTag.count...])
        return 0
    }
    if bytes.starts(with: fuzzRegistrationTag) {
        fuzzRegistration(bytes[fuzzRegistrationTag.count...])
        return 0
    }
    fuzzOneInput(bytes)
    // libpng rejects a chunk with a wrong CRC before parsing it, so nearly
    // every mutation of a PNG would stop there. Decode a copy with the CRCs
    // recomputed as well, so mutations reach the chunk parsers and the shim.
    if let fixed = pngWithFixedCRCs(bytes), fixed != bytes {
        fuzzOneInput(fixed)
    }
    return 0
}

/// `bytes` with every complete chunk's CRC recomputed, or nil when it is not
/// a PNG. Trailing incomplete data is kept as is.
func pngWithFixedCRCs(_ bytes: [UInt8]) -> [UInt8]? {
    guard ImageFormat.fromMagic(bytes) == .png else { return nil }
    var out = bytes
    var i = 8
    while i + 12 <= out.count {
        let length = Int(out[i]) << 24 | Int(out[i + 1]) << 16 | Int(out[i + 2]) << 8 | Int(out[i + 3])
        let end = i + 8 + length  // CRC position
        guard length <= out.count, end + 4 <= out.count else { break }
        let crc = crc32(out[(i + 4)..<end])
        out[end] = UInt8(truncatingIfNeeded: crc >> 24)
        out[end + 1] = UInt8(truncatingIfNeeded: crc >> 16)
        out[end + 2] = UInt8(truncatingIfNeeded: crc >> 8)
        out[end + 3] = UInt8(truncatingIfNeeded: crc)
        i = end + 4
    }
    return out
}

/// CRC-32 (ISO 3309, as PNG uses it), bit by bit: inputs are small.
func crc32(_ data: ArraySlice<UInt8>) -> UInt32 {
    var c: UInt32 = 0xFFFF_FFFF
    for byte in data {
        c ^= UInt32(byte)
        for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }
    return c ^ 0xFFFF_FFFF
}

/// Runs every decoder entry point over `bytes`; traps on anything but a
/// clean result or a `StackerError`.
func fuzzOneInput(_ bytes: [UInt8]) {
    // 1. Full decode.
    do {
        let decoded = try ImageFile.decode(bytes: bytes, path: "fuzz", maxPixels: fuzzMaxPixels)
        let image = decoded.image
        precondition(image.width > 0 && image.height > 0, "decoded an empty image")
        precondition(image.width * image.height <= fuzzMaxPixels, "decoded past maxPixels")
        precondition(image.channels == 1 || image.channels == 3, "bad channel count \(image.channels)")
        precondition([8, 16, 32].contains(decoded.bitDepth), "bad bit depth \(decoded.bitDepth)")
        precondition((1...8).contains(decoded.orientation), "bad orientation \(decoded.orientation)")
        for plane in image.planes {
            precondition(plane.width == image.width && plane.height == image.height
                         && plane.pixels.count == image.width * image.height, "plane size mismatch")
        }
        if ImageFormat.fromMagic(bytes) == .fits { fitsRoundTrip(decoded) }
        if ImageFormat.fromMagic(bytes) == .tiff, let h = try? TIFFCodec.header(bytes, path: "fuzz") {
            precondition(h.width == image.width && h.height == image.height && h.channels == image.channels,
                         "TIFF header disagrees with decode")
        }
        if ImageFormat.fromMagic(bytes) == .fits, let h = try? FITSCodec.header(bytes, path: "fuzz") {
            precondition(h.width == image.width && h.height == image.height && h.channels == image.channels,
                         "FITS header disagrees with decode")
        }
    } catch is StackerError {
        // Refused with a reason: fine.
    } catch {
        preconditionFailure("decode threw a non-StackerError: \(error)")
    }

    // 1b. The pipeline's 8-bit JPEG forms (RGB planes, and Y, Cb, Cr as
    // stored): they must agree with the full decode on size and channels.
    if ImageFormat.fromMagic(bytes) == .jpeg {
        let full = try? JPEGCodec.decode(bytes, path: "fuzz", maxPixels: fuzzMaxPixels)
        do {
            let planes = try JPEGCodec.decodeBytes(bytes, path: "fuzz", maxPixels: fuzzMaxPixels)
            precondition(full.map { $0.width == planes.width && $0.height == planes.height && $0.channels == planes.channels } ?? true,
                         "8-bit decode disagrees with the float decode")
            if let ycc = try JPEGCodec.decodeYCbCr(bytes, path: "fuzz", maxPixels: fuzzMaxPixels, factor: nil) {
                precondition(ycc.width == planes.width && ycc.height == planes.height && planes.channels == 3,
                             "Y, Cb, Cr decode disagrees with the RGB decode")
            }
        } catch is StackerError {
        } catch {
            preconditionFailure("8-bit JPEG decode threw a non-StackerError: \(error)")
        }
    }

    // 2. Header-only paths (what ImageFile.readHeader calls).
    switch ImageFormat.fromMagic(bytes) {
    case .jpeg:
        do { _ = try JPEGCodec.header(bytes, path: "fuzz") } catch is StackerError {} catch {
            preconditionFailure("JPEG header threw a non-StackerError: \(error)")
        }
    case .png:
        do { _ = try PNGCodec.header(bytes, path: "fuzz") } catch is StackerError {} catch {
            preconditionFailure("PNG header threw a non-StackerError: \(error)")
        }
    case .tiff:
        do { _ = try TIFFCodec.header(bytes, path: "fuzz") } catch is StackerError {} catch {
            preconditionFailure("TIFF header threw a non-StackerError: \(error)")
        }
    case .fits:
        do { _ = try FITSCodec.header(bytes, path: "fuzz") } catch is StackerError {} catch {
            preconditionFailure("FITS header threw a non-StackerError: \(error)")
        }
    case .heif:
        fuzzHEIFFrames(bytes)
    case nil:
        break
    }
    if SERCodec.hasMagic(bytes) { fuzzSERFrames(bytes) }

    // 3. EXIF parser, in its JPEG framing and on the raw bytes as a TIFF block.
    let exif = EXIF.read(jpeg: bytes)
    precondition((1...8).contains(exif.orientation), "EXIF orientation out of range")
    if let tiff = exif.tiff, let again = TIFFReader(tiff)?.orientation(), let entry = again {
        precondition(entry.value == 1, "orientation not reset to 1 in the carried EXIF")
    }
    if let reader = TIFFReader(bytes), let found = reader.orientation(), let entry = found {
        var copy = bytes
        entry.patch(&copy, to: 1)
        precondition(copy.count == bytes.count, "patch changed the block size")
    }

    // 4. Round trip: insert the input as a TIFF block, read it back.
    let withExif = EXIF.insert(tiff: bytes, intoJPEG: fuzzBareJPEG)
    if !bytes.isEmpty && bytes.count <= EXIF.maxTIFFSize {
        precondition(EXIF.payload(inJPEG: withExif) == bytes, "EXIF insert/payload round trip lost data")
    } else {
        precondition(withExif == fuzzBareJPEG, "EXIF.insert should have left the JPEG unchanged")
    }
}

/// A decoded FITS image written again as 32-bit float with its keywords
/// must read back with the same pixels and every keyword the encoder
/// accepts (name, printable value, kind).
func fitsRoundTrip(_ decoded: DecodedImage) {
    do {
        let again = try ImageFile.decode(bytes: ImageFile.encode(decoded.image, format: .fits,
                                                                 options: EncodeOptions(bitDepth: 32, keywords: decoded.keywords)),
                                         path: "fuzz-again", maxPixels: fuzzMaxPixels)
        precondition(again.image == decoded.image, "FITS float round trip changed the pixels")
        func summary(_ k: [FITSKeyword]) -> [String] { k.map { "\($0.name)=\(FITSKeyword.printable($0.value)) \($0.kind)" } }
        precondition(summary(again.keywords) == summary(decoded.keywords.filter { $0.card != nil }),
                     "FITS keywords changed: \(summary(decoded.keywords)) → \(summary(again.keywords))")
    } catch {
        preconditionFailure("re-encoding a decoded FITS image failed: \(error)")
    }
}
