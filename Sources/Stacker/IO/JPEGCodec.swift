internal import CTurboJPEG
import Registration

/// Owns one TurboJPEG handle (compressor or decompressor) and destroys it in
/// `deinit`. TurboJPEG handles are not thread-safe: make one per call.
final class TurboJPEGHandle {
    /// The C handle; valid for the life of this object.
    let raw: tjhandle

    /// A decompressor (`compress == false`) or compressor.
    /// - Throws: `StackerError.unreadable` / `.writeFailed` naming `path`.
    init(compress: Bool, path: String) throws {
        guard let h = compress ? tjInitCompress() : tjInitDecompress() else {
            let reason = "cannot start the JPEG codec"
            throw compress ? StackerError.writeFailed(path: path, reason: reason)
                           : StackerError.unreadable(path: path, reason: reason)
        }
        raw = h
    }

    deinit { tjDestroy(raw) }

    /// The message of the last error or warning on this handle.
    /// The corresponding C function is `tjGetErrorStr2`.
    var errorMessage: String {
        guard let s = tjGetErrorStr2(raw) else { return "unknown JPEG error" }
        return String(cString: s)
    }

    /// True when the last failure was only a warning (the output may be damaged).
    /// The corresponding C function is `tjGetErrorCode`.
    var lastFailureWasWarning: Bool { tjGetErrorCode(raw) == Int32(TJERR_WARNING.rawValue) }
}

/// JPEG decoding and encoding through TurboJPEG. The only file that imports
/// `CTurboJPEG`; no C type leaves it.
enum JPEGCodec {
    /// What the JPEG header says.
    struct Header {
        /// Stored width and height (before EXIF orientation).
        var width: Int
        var height: Int
        /// 1 for grayscale files, 3 otherwise.
        var channels: Int
        /// Chroma subsampling as TurboJPEG names it (`TJSAMP_*`).
        var subsampling: Int32 = -1
        /// True when the components are Y, Cb, Cr (JFIF).
        var isYCbCr = false
    }

    /// The stored size and channel count, from the header only.
    /// - Throws: `StackerError.unreadable` naming `path` (also for CMYK files).
    static func header(_ bytes: [UInt8], path: String) throws -> Header {
        let handle = try TurboJPEGHandle(compress: false, path: path)
        return try header(bytes, handle: handle, path: path)
    }

    private static func header(_ bytes: [UInt8], handle: TurboJPEGHandle, path: String) throws -> Header {
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let rc = bytes.withUnsafeBufferPointer { b in
            tjDecompressHeader3(handle.raw, b.baseAddress, UInt(b.count), &width, &height, &subsampling, &colorspace)
        }
        if rc != 0 && !(handle.lastFailureWasWarning && isHarmless(handle.errorMessage))
            && !isUnnamedSubsampling(handle.errorMessage, width: width, height: height, colorspace: colorspace) {
            throw StackerError.unreadable(path: path, reason: reason(for: handle.errorMessage))
        }
        if colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue) {
            throw StackerError.unreadable(path: path, reason: "CMYK JPEG files are not supported")
        }
        guard width > 0, height > 0 else {
            throw StackerError.unreadable(path: path, reason: "the JPEG header gives no image size")
        }
        return Header(width: Int(width), height: Int(height),
                      channels: colorspace == Int32(TJCS_GRAY.rawValue) ? 1 : 3,
                      subsampling: subsampling, isYCbCr: colorspace == Int32(TJCS_YCbCr.rawValue))
    }

    /// Decodes a JPEG (baseline or progressive, any chroma subsampling) into
    /// planes as stored (EXIF orientation not applied): 1 plane for gray,
    /// 3 (R, G, B) otherwise, values / 255.
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func decode(_ bytes: [UInt8], path: String, maxPixels: Int) throws -> Image {
        let (h, pixels) = try decompress(bytes, path: path, maxPixels: maxPixels)
        let planes = pixels.withUnsafeBufferPointer {
            PixelConversion.planes(from: $0, width: h.width, height: h.height, channels: h.channels)
        }
        return Image(width: h.width, height: h.height, planes: planes)
    }

    /// `decode`, with the samples kept as bytes: the same planes before the
    /// division by 255.
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func decodeBytes(_ bytes: [UInt8], path: String, maxPixels: Int) throws -> ByteImage {
        let (h, pixels) = try decompress(bytes, path: path, maxPixels: maxPixels)
        guard h.channels == 3 else {
            return ByteImage(width: h.width, height: h.height,
                             planes: [BytePlane(width: h.width, height: h.height, pixels: pixels)])
        }
        let planes = pixels.withUnsafeBufferPointer {
            PixelConversion.bytePlanes(from: $0, width: h.width, height: h.height)
        }
        return ByteImage(width: h.width, height: h.height, planes: planes)
    }

    /// The Y, Cb and Cr planes as stored, without TurboJPEG's colour
    /// conversion and chroma upsampling, when the file allows it: a YCbCr
    /// JPEG with 4:4:4 chroma (factor 1), or 4:2:0 (factor 2) and an even
    /// width and height. `factor`, when given, must match. Nil otherwise.
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func decodeYCbCr(_ bytes: [UInt8], path: String, maxPixels: Int, factor wanted: Int?) throws -> YCbCrImage? {
        let handle = try TurboJPEGHandle(compress: false, path: path)
        let h = try header(bytes, handle: handle, path: path)
        guard h.channels == 3, h.isYCbCr else { return nil }
        let factor: Int
        switch h.subsampling {
        case Int32(TJSAMP_444.rawValue): factor = 1
        case Int32(TJSAMP_420.rawValue) where h.width % 2 == 0 && h.height % 2 == 0: factor = 2
        default: return nil
        }
        guard wanted == nil || wanted == factor else { return nil }
        try checkSize(width: h.width, height: h.height, maxPixels: maxPixels, path: path)
        let cw = h.width / factor, ch = h.height / factor
        var rc: Int32 = 0
        // TurboJPEG writes every sample of each plane (as `decompress`), so
        // the planes need no clearing first.
        var cb = [UInt8](), cr = [UInt8]()
        let y = [UInt8](unsafeUninitializedCapacity: h.width * h.height) { yp, yCount in
            cb = [UInt8](unsafeUninitializedCapacity: cw * ch) { bp, bCount in
                cr = [UInt8](unsafeUninitializedCapacity: cw * ch) { rp, rCount in
                    var planes: [UnsafeMutablePointer<UInt8>?] = [yp.baseAddress, bp.baseAddress, rp.baseAddress]
                    // Robust modes keep every frame's planes: mostly fresh pages.
                    for (plane, count) in [(yp, h.width * h.height), (bp, cw * ch), (rp, cw * ch)] {
                        if let base = plane.baseAddress { Platform.populate(base, byteCount: count) }
                    }
                    rc = bytes.withUnsafeBufferPointer { b in
                        planes.withUnsafeMutableBufferPointer { p in
                            tjDecompressToYUVPlanes(handle.raw, b.baseAddress, UInt(b.count), p.baseAddress,
                                                    Int32(h.width), nil, Int32(h.height),
                                                    TJFLAG_ACCURATEDCT | TJFLAG_LIMITSCANS)
                        }
                    }
                    rCount = cw * ch
                }
                bCount = cw * ch
            }
            yCount = h.width * h.height
        }
        if rc != 0 && !(handle.lastFailureWasWarning && isHarmless(handle.errorMessage)) {
            throw StackerError.unreadable(path: path, reason: reason(for: handle.errorMessage))
        }
        return YCbCrImage(luma: BytePlane(width: h.width, height: h.height, pixels: y),
                          chroma: [BytePlane(width: cw, height: ch, pixels: cb),
                                   BytePlane(width: cw, height: ch, pixels: cr)],
                          chromaFactor: factor)
    }

    /// The header and the interleaved 8-bit samples (gray, or R, G, B).
    private static func decompress(_ bytes: [UInt8], path: String, maxPixels: Int) throws -> (Header, [UInt8]) {
        let handle = try TurboJPEGHandle(compress: false, path: path)
        let h = try header(bytes, handle: handle, path: path)
        try checkSize(width: h.width, height: h.height, maxPixels: maxPixels, path: path)
        let format = h.channels == 1 ? TJPF_GRAY : TJPF_RGB
        let count = h.width * h.height * h.channels
        let flags = TJFLAG_ACCURATEDCT | TJFLAG_LIMITSCANS
        var rc: Int32 = 0
        // TurboJPEG writes every sample (a truncated file's missing rows
        // too, as gray), so the buffer needs no clearing first.
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { p, initialised in
            rc = bytes.withUnsafeBufferPointer { b in
                tjDecompress2(handle.raw, b.baseAddress, UInt(b.count), p.baseAddress,
                              Int32(h.width), 0, Int32(h.height), Int32(format.rawValue), flags)
            }
            initialised = count
        }
        if rc != 0 && !(handle.lastFailureWasWarning && isHarmless(handle.errorMessage)) {
            throw StackerError.unreadable(path: path, reason: reason(for: handle.errorMessage))
        }
        return (h, pixels)
    }

    /// Encodes `image` (1 or 3 planes) as an 8-bit JPEG: grayscale for 1
    /// plane; for 3, chroma 4:4:4 at quality ≥ 90 and 4:2:0 below.
    /// Images of more than one strip (`JPEGStrips`, about 1 MP each) are
    /// compressed strip by strip on up to `threads` threads and joined
    /// with restart markers: the same pixels as one piece, and the same
    /// bytes whatever `threads` is.
    /// `progressive` (tests only) writes progressive entropy coding, in one
    /// piece; `onePiece` (tests only) compresses in one piece without it.
    /// - Throws: `StackerError.invalidInput` / `.writeFailed` naming `path`.
    static func encode(_ image: Image, quality: Int, path: String, progressive: Bool = false,
                       onePiece: Bool = false, threads: Int = 1) throws -> [UInt8] {
        guard image.width <= 65535, image.height <= 65535 else {
            throw StackerError.invalidInput(path: path, reason: "the image is too large for JPEG (at most 65535 pixels a side)")
        }
        let gray = image.channels == 1
        let subsampling = gray ? TJSAMP_GRAY : (quality >= 90 ? TJSAMP_444 : TJSAMP_420)
        let mcu = mcuSize(subsampling)
        if !progressive, !onePiece,
           let rows = JPEGStrips.rowsPerStrip(width: image.width, height: image.height,
                                              mcuWidth: mcu.width, mcuHeight: mcu.height) {
            let count = (image.height + rows - 1) / rows
            let strips = parallelMap(count, threads: threads) { k -> Result<[UInt8], any Error> in
                let band = (k * rows)..<min(image.height, (k + 1) * rows)
                return Result {
                    try compress(image, rows: band, subsampling: subsampling, quality: quality,
                                 progressive: false, path: path)
                }
            }
            let interval = JPEGStrips.restartInterval(width: image.width, rows: rows,
                                                      mcuWidth: mcu.width, mcuHeight: mcu.height)
            if let joined = JPEGStrips.join(try strips.map { try $0.get() }, height: image.height, interval: interval) {
                return joined
            }
        }
        return try compress(image, rows: 0..<image.height, subsampling: subsampling, quality: quality,
                            progressive: progressive, path: path)
    }

    /// MCU size in pixels of a TurboJPEG subsampling.
    private static func mcuSize(_ subsampling: TJSAMP) -> (width: Int, height: Int) {
        switch subsampling {
        case TJSAMP_420: return (16, 16)
        case TJSAMP_422: return (16, 8)
        case TJSAMP_440: return (8, 16)
        case TJSAMP_411: return (32, 8)
        default: return (8, 8)
        }
    }

    /// Rows `rows` of `image` compressed as a JPEG of their own.
    private static func compress(_ image: Image, rows: Range<Int>, subsampling: TJSAMP, quality: Int,
                                 progressive: Bool, path: String) throws -> [UInt8] {
        let handle = try TurboJPEGHandle(compress: true, path: path)
        let samples = PixelConversion.interleaved8(image, rows: rows)
        let format = image.channels == 1 ? TJPF_GRAY : TJPF_RGB
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        defer { if output != nil { tjFree(output) } }
        let rc = samples.withUnsafeBufferPointer { s in
            tjCompress2(handle.raw, s.baseAddress, Int32(image.width), 0, Int32(rows.count),
                        Int32(format.rawValue), &output, &size,
                        Int32(subsampling.rawValue), Int32(quality),
                        TJFLAG_ACCURATEDCT | (progressive ? TJFLAG_PROGRESSIVE : 0))
        }
        guard rc == 0, let output else {
            throw StackerError.writeFailed(path: path, reason: "JPEG encoding failed: \(handle.errorMessage)")
        }
        return [UInt8](UnsafeBufferPointer(start: output, count: Int(size)))
    }

    /// A YCCK (CMYK) JPEG of a flat colour, so tests can check that such
    /// files are refused; not used by the tool itself.
    static func cmykSampleForTesting(width: Int, height: Int) throws -> [UInt8] {
        let handle = try TurboJPEGHandle(compress: true, path: "")
        let samples = [UInt8](repeating: 100, count: width * height * 4)
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        defer { if output != nil { tjFree(output) } }
        let rc = samples.withUnsafeBufferPointer { s in
            tjCompress2(handle.raw, s.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_CMYK.rawValue),
                        &output, &size, Int32(TJSAMP_444.rawValue), 90, 0)
        }
        guard rc == 0, let output else {
            throw StackerError.writeFailed(path: "", reason: handle.errorMessage)
        }
        return [UInt8](UnsafeBufferPointer(start: output, count: Int(size)))
    }

    /// Refuses images over `maxPixels` before their pixels are allocated.
    static func checkSize(width: Int, height: Int, maxPixels: Int, path: String) throws {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > maxPixels {
            throw StackerError.unreadable(path: path, reason: tooLargeReason(width: width, height: height, maxPixels: maxPixels))
        }
    }

    /// "the image is W×H pixels, more than the limit of N megapixels".
    static func tooLargeReason(width: Int, height: Int, maxPixels: Int) -> String {
        let limit = Double(maxPixels) / 1e6
        let text = limit >= 1 && limit == limit.rounded() ? String(Int(limit)) : String(limit)
        return "the image is \(width)×\(height) pixels, more than the limit of \(text) megapixels"
    }

    /// True when the header failed only because TurboJPEG has no name for
    /// the file's chroma sampling (4:1:0, asymmetric factors such as 2×1 /
    /// 1×2): `tjDecompressHeader3` fills in the size and colour space before
    /// it gives up, and `tjDecompress2` (libjpeg's own upsampling) decodes
    /// such files to RGB. The subsampling is then reported as -1, which
    /// sends the file down the RGB path (`decodeYCbCr` gives nil).
    private static func isUnnamedSubsampling(_ message: String, width: Int32, height: Int32, colorspace: Int32) -> Bool {
        message.contains("Could not determine subsampling type") && width > 0 && height > 0
            && [TJCS_GRAY, TJCS_RGB, TJCS_YCbCr, TJCS_CMYK, TJCS_YCCK].contains { Int32($0.rawValue) == colorspace }
    }

    /// TurboJPEG warnings that do not damage the pixels: some cameras leave
    /// stray bytes before a marker in otherwise intact files.
    static func isHarmless(_ message: String) -> Bool {
        message.contains("extraneous bytes before marker")
    }

    /// A short sentence for a TurboJPEG / libjpeg message.
    static func reason(for message: String) -> String {
        let m = message.lowercased()
        if m.contains("premature end of jpeg file") || m.contains("premature end of data segment") {
            return "truncated JPEG data"
        }
        if m.contains("not a jpeg file") { return "not a JPEG file" }
        // This libjpeg-turbo is built for 8-bit samples only.
        if m.contains("unsupported jpeg data precision 12") { return "12-bit JPEG is not supported" }
        return "corrupt JPEG data (\(message))"
    }
}
