internal import CFITSIO
import Registration
import Synchronization

/// FITS decoding and encoding through cfitsio, in memory. The only file
/// that imports `CFITSIO`; it calls only the `stack_fits_…` functions of
/// `CFITSIO/shim.h`. No C type leaves it.
///
/// Read: the primary HDU's image. BITPIX 8, 16, 32, -32 or -64; NAXIS = 2
/// (gray), or 3 with NAXIS3 = 3 (R, G, B planes) or 1 (gray). BZERO / BSCALE
/// are applied first (BITPIX 16 with BZERO 32768 is unsigned 16-bit), then
/// the value is scaled to our 0…1 convention by the full scale of the
/// stored integer type: / 255 (8-bit), / 65535 (16-bit, signed files keep
/// their negative values negative), / 4 294 967 295 (32-bit). Floats
/// (-32, -64) are kept as stored: Siril's 32-bit convention is 0…1 already.
/// Undefined pixels (NaN, BLANK) become 0.
///
/// Row order: FITS stores the bottom row of the picture first (as Siril and
/// ds9 show it), so the first stored row becomes the last row of our
/// top-down `Image`, on reading and on writing.
///
/// Keywords: decoding returns the keywords named in `carriedNames` that the
/// header holds; encoding writes the given ones after the structural
/// keywords, which it never takes from the list (see `FITSKeyword.card`).
///
/// Threads: cfitsio is thread-safe only when built with `_REENTRANT`.
/// `fits_is_reentrant()` says whether it was (Debian 12's build is); if not,
/// every cfitsio call goes through one process-wide `Mutex`.
enum FITSCodec {
    /// The first bytes of every FITS file: the SIMPLE card's name and `=`.
    static let magic: [UInt8] = Array("SIMPLE  =".utf8)

    /// The keywords decoding keeps (when present), in this order.
    static let carriedNames = ["EXPTIME", "EXPOSURE", "DATE-OBS", "OBJECT", "TELESCOP", "INSTRUME",
                               "FILTER", "GAIN", "OFFSET", "CCD-TEMP", "XBINNING", "YBINNING",
                               "FOCALLEN", "APTDIA", "RA", "DEC", "OBSERVER", "SITELAT", "SITELONG"]

    /// True when the file starts with `SIMPLE  =`.
    static func hasMagic(_ b: [UInt8]) -> Bool {
        b.count >= magic.count && b[0..<magic.count].elementsEqual(magic)
    }

    /// Whether cfitsio could be loaded (it is opened on first use, see
    /// `CFITSIO/shim.h`).
    private static let available = stack_fits_load() != 0

    /// Whether this cfitsio may be called from several threads at once.
    private static let reentrant = available && stack_fits_is_reentrant() != 0

    /// Serialises cfitsio when it is not reentrant (see the type's description).
    private static let lock = Mutex(())

    /// Runs `body` (which calls cfitsio) under `lock` unless cfitsio is
    /// reentrant; when cfitsio cannot be loaded, throws the error `missing`
    /// makes of the reason instead.
    private static func withCFITSIO<T: Sendable>(_ missing: (String) -> StackerError,
                                                 _ body: () throws(StackerError) -> T) throws(StackerError) -> T {
        guard available else {
            throw missing("FITS needs the cfitsio library (Debian/Ubuntu: libcfitsio10), which could not be loaded")
        }
        if reentrant { return try body() }
        return try lock.withLock { _ throws(StackerError) -> T in try body() }
    }

    /// What the primary header says: size, channels (1 or 3), bit depth
    /// (8, 16, or 32 for 32-bit integers and floats), BITPIX.
    struct Header {
        var width: Int
        var height: Int
        var channels: Int
        var bitDepth: Int
        var bitpix: Int
    }

    /// Reads the primary header only and applies the same checks as `decode`.
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func header(_ bytes: [UInt8], path: String) throws -> Header {
        try withCFITSIO({ .unreadable(path: path, reason: $0) }) { () throws(StackerError) -> Header in
            try withFile(bytes, path: path) { file throws(StackerError) -> Header in try shape(file, path: path) }
        }
    }

    /// Decodes the primary image (see the type's description): planes,
    /// bit depth (8, 16 or 32) and the carried keywords.
    /// - Throws: `StackerError.unreadable` naming `path`, also for images
    ///   over `maxPixels`, refused before their pixels are allocated.
    static func decode(_ bytes: [UInt8], path: String, maxPixels: Int) throws -> DecodedImage {
        try withCFITSIO({ .unreadable(path: path, reason: $0) }) { () throws(StackerError) -> DecodedImage in
          try withFile(bytes, path: path) { file throws(StackerError) -> DecodedImage in
            let h = try shape(file, path: path)
            do {
                try JPEGCodec.checkSize(width: h.width, height: h.height, maxPixels: maxPixels, path: path)
            } catch let error as StackerError {
                throw error
            } catch {
                throw StackerError.unreadable(path: path, reason: "\(error)")
            }
            let n = h.width * h.height
            // cfitsio does not notice a data unit cut short in memory: check
            // the size here, which also keeps a lying header from making us
            // allocate for pixels the file cannot hold.
            var dataStart: Int64 = 0, status: Int32 = 0
            _ = stack_fits_data_start(file, &dataStart, &status)
            let (dataBytes, overflow) = (n * h.channels).multipliedReportingOverflow(by: abs(h.bitpix) / 8)
            guard status == 0, !overflow, dataStart >= 0, Int64(bytes.count) - dataStart >= Int64(dataBytes) else {
                throw StackerError.unreadable(path: path, reason: status == 0 ? "truncated FITS data" : reason(status))
            }
            var samples = [Float](repeating: 0, count: n * h.channels)
            samples.withUnsafeMutableBufferPointer { s in
                _ = stack_fits_read_floats(file, Int64(n * h.channels), s.baseAddress, &status)
            }
            guard status == 0 else { throw StackerError.unreadable(path: path, reason: reason(status)) }
            let divisor: Float
            switch h.bitpix {
            case 8: divisor = 255
            case 16: divisor = 65535
            case 32: divisor = 4_294_967_296  // 2³² − 1 rounds to this as a Float
            default: divisor = 1
            }
            let planes = samples.withUnsafeBufferPointer { s in
                (0..<h.channels).map { c in
                    PixelConversion.plane(from: UnsafeBufferPointer(rebasing: s[(c * n)..<((c + 1) * n)]),
                                          width: h.width, height: h.height, divisor: divisor, bottomUp: true)
                }
            }
            let image = Image(width: h.width, height: h.height, planes: planes)
            return DecodedImage(image: image, bitDepth: h.bitDepth, keywords: try keywords(file, path: path))
          }
        }
    }

    /// Encodes `image` as a FITS primary image: `bitDepth` 8 (BITPIX 8),
    /// 16 (BITPIX 16 with BZERO 32768: unsigned) — both clamped to 0…1 and
    /// rounded — or 32 (BITPIX -32, values kept as they are, NaN as 0);
    /// NAXIS 2 for gray, NAXIS 3 with NAXIS3 = 3 for RGB; bottom row first.
    /// `keywords` that `FITSKeyword.card` accepts follow the structural
    /// ones, the first of each name only.
    /// - Throws: `StackerError.invalidInput` / `.writeFailed` naming `path`.
    static func encode(_ image: Image, bitDepth: Int, keywords: [FITSKeyword], path: String) throws -> [UInt8] {
        guard [8, 16, 32].contains(bitDepth) else {
            throw StackerError.invalidInput(path: path, reason: "FITS bit depth must be 8, 16 or 32 (float), not \(bitDepth)")
        }
        var seen = Set<String>()
        let cards = keywords.compactMap { k -> String? in
            guard let card = k.card, seen.insert(k.name.uppercased()).inserted else { return nil }
            return card
        }
        // Converted outside the lock: only the cfitsio calls need it.
        let kind: Int32
        let samples: [UInt8]
        switch bitDepth {
        case 8:
            kind = 1
            samples = PixelConversion.planarBottomUp(image, PixelConversion.to8)
        case 16:
            kind = 2
            samples = PixelConversion.planarBottomUp(image, PixelConversion.to16).withUnsafeBytes { Array($0) }
        default:
            kind = 4
            samples = PixelConversion.planarBottomUp(image, PixelConversion.toFloat).withUnsafeBytes { Array($0) }
        }
        let count = Int64(image.pixelCount * image.channels)
        return try withCFITSIO({ .writeFailed(path: path, reason: $0) }) { () throws(StackerError) -> [UInt8] in
            var status: Int32 = 0
            // Header records (structural cards plus ours, 36 cards a record) and the data unit.
            let expected = (2 + cards.count / 36) * recordSize + samples.count
            guard let file = stack_fits_create(expected, &status) else {
                throw StackerError.writeFailed(path: path, reason: "FITS encoding failed: \(reason(status))")
            }
            var axes: (Int64, Int64, Int64) = (Int64(image.width), Int64(image.height), Int64(image.channels))
            withUnsafeMutablePointer(to: &axes) { a in
                a.withMemoryRebound(to: Int64.self, capacity: 3) { p in
                    _ = stack_fits_create_image(file, bitDepth == 32 ? -32 : Int32(bitDepth),
                                                image.channels == 1 ? 2 : 3, p, &status)
                }
            }
            for card in cards where status == 0 {
                _ = stack_fits_write_card(file, card, &status)
            }
            if status == 0 {
                samples.withUnsafeBytes { s in _ = stack_fits_write_pixels(file, kind, s.baseAddress, count, &status) }
            }
            guard status == 0 else {
                stack_fits_close(file, 1)
                throw StackerError.writeFailed(path: path, reason: "FITS encoding failed: \(reason(status))")
            }
            var output: UnsafeMutablePointer<UInt8>? = nil
            var size = 0
            _ = stack_fits_finish(file, &output, &size, &status)
            defer { stack_fits_free(output) }
            guard status == 0, let output else {
                throw StackerError.writeFailed(path: path, reason: "FITS encoding failed: \(reason(status))")
            }
            return [UInt8](UnsafeBufferPointer(start: output, count: size))
        }
    }

    /// The size of a FITS record: files are whole records.
    static let recordSize = 2880

    /// Opens `bytes` read-only for the duration of `body`.
    ///
    /// cfitsio's memory driver always reads whole 2880-byte records, so a file
    /// whose length is not a multiple of 2880 (cut short, or written without
    /// its final padding) would make it read past the end of our buffer
    /// (found by fuzzing: Fuzz/regressions/fits-unpadded-record-overread.fits).
    /// Such files are opened from a copy padded with zeros; `decode` still
    /// checks the data unit against the real length.
    private static func withFile<T>(_ bytes: [UInt8], path: String,
                                    _ body: (UnsafeMutablePointer<stack_fits_file>) throws(StackerError) -> T) throws(StackerError) -> T {
        let remainder = bytes.count % recordSize
        let padded = remainder == 0 ? bytes : bytes + [UInt8](repeating: 0, count: recordSize - remainder)
        return try padded.withUnsafeBufferPointer { b throws(StackerError) -> T in
            var status: Int32 = 0
            guard let file = stack_fits_open(b.baseAddress, b.count, &status), status == 0 else {
                throw StackerError.unreadable(path: path, reason: reason(status))
            }
            defer { stack_fits_close(file, 0) }
            return try body(file)
        }
    }

    /// BITPIX and axes of the primary image, checked.
    private static func shape(_ file: UnsafeMutablePointer<stack_fits_file>, path: String) throws(StackerError) -> Header {
        var bitpix: Int32 = 0, naxis: Int32 = 0, status: Int32 = 0
        var axes: (Int64, Int64, Int64) = (0, 0, 0)
        withUnsafeMutablePointer(to: &axes) { a in
            a.withMemoryRebound(to: Int64.self, capacity: 3) { p in
                _ = stack_fits_image_shape(file, &bitpix, &naxis, p, &status)
            }
        }
        guard status == 0 else { throw StackerError.unreadable(path: path, reason: reason(status)) }
        let channels: Int
        switch (naxis, axes.2) {
        case (2, _): channels = 1
        case (3, 1): channels = 1
        case (3, 3): channels = 3
        case (3, _):
            throw StackerError.unreadable(path: path, reason: "a FITS cube with NAXIS3 = \(axes.2) is not supported (need 1 or 3 planes)")
        case (0, _):
            throw StackerError.unreadable(path: path, reason: "the FITS file has no primary image (NAXIS = 0)")
        default:
            throw StackerError.unreadable(path: path, reason: "FITS images with NAXIS = \(naxis) are not supported (need 2 or 3)")
        }
        guard axes.0 > 0, axes.1 > 0, axes.0 <= Int64(Int32.max), axes.1 <= Int64(Int32.max) else {
            throw StackerError.unreadable(path: path, reason: "the FITS header gives no usable image size (\(axes.0)×\(axes.1))")
        }
        let bitDepth: Int
        switch bitpix {
        case 8: bitDepth = 8
        case 16: bitDepth = 16
        case 32, -32, -64: bitDepth = 32
        default:
            throw StackerError.unreadable(path: path, reason: "FITS BITPIX \(bitpix) is not supported (need 8, 16, 32, -32 or -64)")
        }
        return Header(width: Int(axes.0), height: Int(axes.1), channels: channels, bitDepth: bitDepth, bitpix: Int(bitpix))
    }

    /// The `carriedNames` keywords the header holds.
    private static func keywords(_ file: UnsafeMutablePointer<stack_fits_file>, path: String) throws(StackerError) -> [FITSKeyword] {
        var found: [FITSKeyword] = []
        var value = [CChar](repeating: 0, count: Int(STACK_FITS_VALUE_SIZE))
        var comment = [CChar](repeating: 0, count: Int(STACK_FITS_COMMENT_SIZE))
        for name in carriedNames {
            var kind: CChar = 0, status: Int32 = 0
            let rc = value.withUnsafeMutableBufferPointer { v in
                comment.withUnsafeMutableBufferPointer { c in
                    stack_fits_read_keyword(file, name, v.baseAddress, c.baseAddress, &kind, &status)
                }
            }
            guard rc == 0 else {
                if rc == STACK_FITS_KEY_MISSING { continue }
                throw StackerError.unreadable(path: path, reason: reason(status))
            }
            let k: FITSKeyword.Kind
            switch UInt8(bitPattern: kind) {
            case UInt8(ascii: "C"): k = .string
            case UInt8(ascii: "I"): k = .integer
            case UInt8(ascii: "F"): k = .float
            case UInt8(ascii: "L"): k = .logical
            default: continue  // complex or no value: not carried
            }
            // Header text is ASCII 32…126 by the standard; anything else
            // becomes `?`, and trailing blanks of a string are not significant,
            // so the value writes back to the same card.
            var text = FITSKeyword.printable(CText.string(value))
            if k == .string { while text.last == " " { text.removeLast() } }
            found.append(FITSKeyword(name: name, value: text, comment: FITSKeyword.printable(CText.string(comment)), kind: k))
        }
        return found
    }

    /// A one-line sentence for a cfitsio status code.
    static func reason(_ status: Int32) -> String {
        switch status {
        case 107: return "truncated FITS data"  // END_OF_FILE: the data unit is shorter than the header says
        case 0: return "corrupt FITS data"
        default:
            var buffer = [CChar](repeating: 0, count: Int(STACK_FITS_STATUS_SIZE) + 1)
            buffer.withUnsafeMutableBufferPointer { stack_fits_status_text(status, $0.baseAddress) }
            let message = CText.string(buffer)
            return message.isEmpty ? "corrupt FITS data (cfitsio status \(status))" : "corrupt FITS data (\(message))"
        }
    }
}
