internal import CFITSIO
import Registration
import Synchronization

/// FITS decoding and encoding through cfitsio, in memory. The only file
/// that imports `CFITSIO`; it calls only the `stack_fits_…` functions of
/// `CFITSIO/shim.h`. No C type leaves it.
///
/// Read: the image HDU — the primary one, or, when the primary holds no
/// image (NAXIS = 0, as in multi-extension files such as HST's `_flt.fits`
/// and fpack's `.fz`), the first image extension after it. A tile-compressed
/// image (a `ZIMAGE` binary table) is decompressed by cfitsio's own reader.
/// BITPIX 8, 16, 32, -32 or -64; NAXIS = 2 (gray), or 3 with NAXIS3 = 3
/// (R, G, B planes), 1 (gray) or any other N > 1: a cube of N gray frames,
/// frame k being plane k (`Header.frames`, `decode(…, frame:)`). BZERO /
/// BSCALE are applied first (BITPIX 16 with BZERO 32768 is unsigned 16-bit),
/// then the value is scaled to our 0…1 convention by the full scale of the
/// stored integer type: / 255 (8-bit), / 65535 (16-bit, signed files keep
/// their negative values negative), / 4 294 967 295 (32-bit). Floats
/// (-32, -64) are kept as stored: Siril's 32-bit convention is 0…1 already.
/// Undefined pixels (NaN, BLANK) become 0. gzip-compressed files (`.fits.gz`)
/// are not FITS to the magic test; `ImageFile` refuses them by name.
///
/// Row order: by the FITS convention the first stored row is the bottom row
/// of the picture (as Siril and ds9 show it), so it becomes the last row of
/// our top-down `Image`, on reading and on writing — unless the header says
/// `ROWORDER = 'TOP-DOWN'` (NINA, ASIAIR and other capture programs write
/// the sensor's first row first and say so), which is read unflipped.
/// `ROWORDER = 'BOTTOM-UP'`, any other value, or none keeps the flip.
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

    /// What the image HDU's header says: size, channels (1 or 3), bit depth
    /// (8, 16, or 32 for 32-bit integers and floats), BITPIX, how many
    /// frames it holds and where and how they are stored.
    struct Header {
        var width: Int
        var height: Int
        var channels: Int
        var bitDepth: Int
        var bitpix: Int
        /// 1, or N for a cube of N gray planes (NAXIS3 = N, N ∉ {1, 3}).
        var frames: Int = 1
        /// The HDU holding the image: 1 the primary, more for an extension.
        var hdu: Int = 1
        /// Whether the image is tile-compressed (its data unit is a table).
        var compressed: Bool = false
        /// Whether `ROWORDER = 'TOP-DOWN'`: rows are stored top row first.
        var topDown: Bool = false
        /// The CFA pattern at the upright image's top-left pixel, from
        /// `BAYERPAT` (+ `XBAYROFF`, `YBAYROFF`), or nil.
        var cfa: BayerPattern?
    }

    /// Reads the image HDU's header only (see the type's description for
    /// which HDU) and applies the same checks as `decode`.
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func header(_ bytes: [UInt8], path: String) throws -> Header {
        try withCFITSIO({ .unreadable(path: path, reason: $0) }) { () throws(StackerError) -> Header in
            try withFile(bytes, path: path) { file throws(StackerError) -> Header in try locateImage(file, path: path) }
        }
    }

    /// The values of those of the keywords `names` the image HDU's header
    /// holds (strings without their quotes, numbers as written), by name.
    /// - Throws: `StackerError.unreadable` naming `path`.
    @inline(never)
    static func keywordValues(_ bytes: [UInt8], names: [String], path: String) throws -> [String: String] {
        try withCFITSIO({ .unreadable(path: path, reason: $0) }) { () throws(StackerError) -> [String: String] in
            try withFile(bytes, path: path) { file throws(StackerError) -> [String: String] in
                _ = try locateImage(file, path: path)
                var found: [String: String] = [:]
                for name in names { found[name] = try keyword(file, name, path: path) }
                return found
            }
        }
    }

    /// Decodes frame `frame` (from 0) of the image HDU (see the type's
    /// description): planes, bit depth (8, 16 or 32) and the carried
    /// keywords. A file of one frame has only frame 0.
    /// - Throws: `StackerError.unreadable` naming `path`, also for images
    ///   over `maxPixels`, refused before their pixels are allocated, and
    ///   for a frame the file does not hold.
    static func decode(_ bytes: [UInt8], path: String, maxPixels: Int, frame: Int = 0) throws -> DecodedImage {
        try withCFITSIO({ .unreadable(path: path, reason: $0) }) { () throws(StackerError) -> DecodedImage in
            try withFile(bytes, path: path) { file throws(StackerError) -> DecodedImage in
                try decode(file, length: bytes.count, path: path, maxPixels: maxPixels, frame: frame)
            }
        }
    }

    /// Decodes frame `frame` of the FITS file at `path` (as `decode`), reading
    /// from disk only the header records and that frame's data: plane k of a
    /// cube costs one plane's bytes, not the file's. A compressed image's
    /// tiles are read as cfitsio needs them.
    /// - Throws: `StackerError.unreadable` naming `path` (see `decode`).
    static func readFrame(_ frame: Int, of path: FilePath, maxPixels: Int) throws -> DecodedImage {
        // Refuses a pipe or device before cfitsio's open could block on it.
        let length = try FileBytes.size(path)
        let name = path.description
        // A file not padded to whole records is read as `decode` pads it;
        // one whose path is too long for cfitsio's file names (FLEN_FILENAME,
        // 1025 bytes) is read whole too.
        guard length % recordSize == 0, name.utf8.count < 1000 else {
            return try decode(FileBytes.read(path), path: name, maxPixels: maxPixels, frame: frame)
        }
        return try withCFITSIO({ .unreadable(path: name, reason: $0) }) { () throws(StackerError) -> DecodedImage in
            var status: Int32 = 0
            guard let file = path.withCString({ stack_fits_open_path($0, &status) }), status == 0 else {
                throw StackerError.unreadable(path: name, reason: reason(status))
            }
            defer { stack_fits_close(file, 0) }
            return try decode(file, length: length, path: name, maxPixels: maxPixels, frame: frame)
        }
    }

    /// Decodes frame `frame` of the open `file`, `length` bytes long.
    private static func decode(_ file: UnsafeMutablePointer<stack_fits_file>, length: Int, path: String,
                               maxPixels: Int, frame: Int) throws(StackerError) -> DecodedImage {
        let h = try locateImage(file, path: path)
        guard (0..<h.frames).contains(frame) else {
            throw StackerError.unreadable(path: path, reason: h.frames == 1
                ? "the file holds one frame, not a frame \(frame)"
                : "the FITS cube holds \(h.frames) frames (0…\(h.frames - 1)), not a frame \(frame)")
        }
        do {
            try JPEGCodec.checkSize(width: h.width, height: h.height, maxPixels: maxPixels, path: path)
        } catch let error as StackerError {
            throw error
        } catch {
            throw StackerError.unreadable(path: path, reason: "\(error)")
        }
        let n = h.width * h.height
        let count = n * h.channels
        var status: Int32 = 0
        if !h.compressed {
            // cfitsio does not notice a data unit cut short in memory:
            // check the size here (the whole unit, every plane of a
            // cube), which also keeps a lying header from making us
            // allocate for pixels the file cannot hold. A compressed
            // image's data unit is a table of tiles, which cfitsio checks
            // as it decompresses them.
            var dataStart: Int64 = 0
            _ = stack_fits_data_start(file, &dataStart, &status)
            let (planes, o1) = count.multipliedReportingOverflow(by: h.frames)
            let (dataBytes, o2) = planes.multipliedReportingOverflow(by: abs(h.bitpix) / 8)
            guard status == 0, !o1, !o2, dataStart >= 0, Int64(length) - dataStart >= Int64(dataBytes) else {
                throw StackerError.unreadable(path: path, reason: status == 0 ? "truncated FITS data" : reason(status))
            }
        }
        var samples = [Float](repeating: 0, count: count)
        samples.withUnsafeMutableBufferPointer { s in
            _ = stack_fits_read_floats(file, Int64(frame * count), Int64(count), s.baseAddress, &status)
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
                                      width: h.width, height: h.height, divisor: divisor, bottomUp: !h.topDown)
            }
        }
        let image = Image(width: h.width, height: h.height, planes: planes)
        var decoded = DecodedImage(image: image, bitDepth: h.bitDepth, keywords: try keywords(file, path: path),
                                   cfa: h.channels == 1 ? h.cfa : nil)
        if h.bitpix > 0 { decoded.storedRange = storedRange(samples) }
        return decoded
    }

    /// The smallest…largest of the defined (not NaN) `samples`, or nil.
    private static func storedRange(_ samples: [Float]) -> ClosedRange<Double>? {
        var low = Float.infinity, high = -Float.infinity
        for v in samples where !v.isNaN {
            low = min(low, v)
            high = max(high, v)
        }
        return low <= high ? Double(low)...Double(high) : nil
    }

    /// Encodes `image` as a FITS primary image: `bitDepth` 8 (BITPIX 8),
    /// 16 (BITPIX 16 with BZERO 32768: unsigned) — both clamped to 0…1 and
    /// rounded — or 32 (BITPIX -32, values kept as they are, NaN as 0);
    /// NAXIS 2 for gray, NAXIS 3 with NAXIS3 = 3 for RGB; bottom row first.
    /// `keywords` that `FITSKeyword.card` accepts follow the structural
    /// ones, the first of each name only.
    /// - Throws: `StackerError.invalidInput` / `.writeFailed` naming `path`.
    ///
    /// Each of `attachments` follows as an image extension of its own: its
    /// bytes as one axis of BITPIX 8, named by `EXTNAME` (empty ones are
    /// left out). `attachments(_:path:)` reads them back.
    static func encode(_ image: Image, bitDepth: Int, keywords: [FITSKeyword],
                       attachments: [(name: String, bytes: [UInt8])] = [], path: String) throws -> [UInt8] {
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
            for attachment in attachments where status == 0 && !attachment.bytes.isEmpty {
                var length: (Int64, Int64, Int64) = (Int64(attachment.bytes.count), 0, 0)
                withUnsafeMutablePointer(to: &length) { a in
                    a.withMemoryRebound(to: Int64.self, capacity: 3) { p in _ = stack_fits_create_image(file, 8, 1, p, &status) }
                }
                let name = FITSKeyword(name: "EXTNAME", value: attachment.name, comment: "bytes carried by stack", kind: .string)
                if status == 0, let card = name.card { _ = stack_fits_write_card(file, card, &status) }
                if status == 0 {
                    attachment.bytes.withUnsafeBytes { b in
                        _ = stack_fits_write_pixels(file, 1, b.baseAddress, Int64(attachment.bytes.count), &status)
                    }
                }
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

    /// The `carriedNames` keywords the image HDU's header holds, as
    /// `decode` gives them, without reading the pixels.
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func carriedKeywords(_ bytes: [UInt8], path: String) throws -> [FITSKeyword] {
        try withCFITSIO({ .unreadable(path: path, reason: $0) }) { () throws(StackerError) -> [FITSKeyword] in
            try withFile(bytes, path: path) { file throws(StackerError) -> [FITSKeyword] in
                _ = try locateImage(file, path: path)
                return try keywords(file, path: path)
            }
        }
    }

    /// The byte attachments `encode` wrote into `bytes`, by `EXTNAME`: every
    /// image extension of one axis and BITPIX 8 that has a name (at most
    /// `maxExtensions` extensions are looked at; others are skipped).
    /// - Throws: `StackerError.unreadable` naming `path`, also for an
    ///   attachment whose data the file is too short to hold.
    static func attachments(_ bytes: [UInt8], path: String) throws -> [String: [UInt8]] {
        try withCFITSIO({ .unreadable(path: path, reason: $0) }) { () throws(StackerError) -> [String: [UInt8]] in
            try withFile(bytes, path: path) { file throws(StackerError) -> [String: [UInt8]] in
                var found: [String: [UInt8]] = [:]
                for hdu in 2...Int32(maxExtensions + 1) {
                    var type: Int32 = 0, status: Int32 = 0
                    _ = stack_fits_move_to_hdu(file, hdu, &type, &status)
                    if status == 107 { break }  // END_OF_FILE: no more HDUs
                    guard status == 0 else { throw StackerError.unreadable(path: path, reason: reason(status)) }
                    guard let name = try keyword(file, "EXTNAME", path: path) else { continue }
                    var bitpix: Int32 = 0, naxis: Int32 = 0
                    var axes: (Int64, Int64, Int64) = (0, 0, 0)
                    withUnsafeMutablePointer(to: &axes) { a in
                        a.withMemoryRebound(to: Int64.self, capacity: 3) { p in _ = stack_fits_image_shape(file, &bitpix, &naxis, p, &status) }
                    }
                    guard status == 0, bitpix == 8, naxis == 1, axes.0 > 0 else { continue }
                    var start: Int64 = 0
                    _ = stack_fits_data_start(file, &start, &status)
                    guard status == 0, start >= 0, Int64(bytes.count) - start >= axes.0 else {
                        throw StackerError.unreadable(path: path, reason: "its \(name) extension is cut short")
                    }
                    var samples = [Float](repeating: 0, count: Int(axes.0))
                    samples.withUnsafeMutableBufferPointer { out in
                        _ = stack_fits_read_floats(file, 0, axes.0, out.baseAddress, &status)
                    }
                    guard status == 0 else { throw StackerError.unreadable(path: path, reason: reason(status)) }
                    found[name] = samples.map { UInt8(clamping: Int($0)) }
                }
                return found
            }
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

    /// Makes the image HDU current (the primary, or the first image
    /// extension when the primary has NAXIS = 0) and returns its header,
    /// checked. At most `maxExtensions` extensions are looked at.
    private static func locateImage(_ file: UnsafeMutablePointer<stack_fits_file>, path: String) throws(StackerError) -> Header {
        var naxis = try axisCount(file, path: path)
        var hdu: Int32 = 1
        while naxis == 0 {
            var type: Int32 = 0, status: Int32 = 0
            hdu += 1
            _ = stack_fits_move_to_hdu(file, hdu, &type, &status)
            if status == 107 || hdu > maxExtensions + 1 {  // END_OF_FILE: no more HDUs
                throw StackerError.unreadable(path: path, reason: hdu == 2
                    ? "the FITS file has no image: its primary HDU is empty (NAXIS = 0) and no extension follows"
                    : "the FITS file has no image: its primary HDU is empty (NAXIS = 0) and none of its \(hdu - 2) extension(s) is an image")
            }
            guard status == 0 else { throw StackerError.unreadable(path: path, reason: reason(status)) }
            guard type == 0 else { continue }  // an ASCII or binary table (compressed images count as images)
            naxis = try axisCount(file, path: path)
        }
        var h = try shape(file, path: path)
        h.hdu = Int(hdu)
        var status: Int32 = 0
        h.compressed = stack_fits_is_compressed(file, &status) != 0
        guard status == 0 else { throw StackerError.unreadable(path: path, reason: reason(status)) }
        if let order = try keyword(file, "ROWORDER", path: path) {
            h.topDown = order.uppercased() == "TOP-DOWN"
        }
        if let name = try keyword(file, "BAYERPAT", path: path), let stored = BayerPattern(name: name) {
            let xOffset = Int(try keyword(file, "XBAYROFF", path: path).flatMap { Double($0) } ?? 0)
            let yOffset = Int(try keyword(file, "YBAYROFF", path: path).flatMap { Double($0) } ?? 0)
            h.cfa = uprightPattern(stored, xOffset: xOffset, yOffset: yOffset, height: h.height, topDown: h.topDown)
        }
        return h
    }

    /// The CFA pattern at the top-left of the upright image, for a file
    /// whose `BAYERPAT` is `stored` with `XBAYROFF` / `YBAYROFF` offsets.
    ///
    /// Convention (as NINA, ASIAIR and Siril write it): `BAYERPAT` names
    /// the colours of the first two stored pixels of the first two stored
    /// rows, after moving `XBAYROFF` columns and `YBAYROFF` rows into the
    /// mosaic: stored pixel (x, r) has the colour of pattern pixel
    /// (x + XBAYROFF, r + YBAYROFF). A bottom-up file's first stored row is
    /// our last row, so its top-left pattern depends on the height's parity.
    static func uprightPattern(_ stored: BayerPattern, xOffset: Int, yOffset: Int, height: Int,
                               topDown: Bool) -> BayerPattern {
        // Our row 0 is stored row 0 (top-down) or height − 1; rows keep their
        // parity step either way, since −1 ≡ 1 (mod 2).
        let firstRow = topDown ? 0 : height - 1
        return stored.shifted(dx: xOffset & 1, dy: (firstRow + yOffset) & 1)
    }

    /// Extensions looked through for an image after an empty primary HDU:
    /// enough for any instrument's layout, and a bound on a file of
    /// thousands of empty headers.
    static let maxExtensions = 64

    /// The current HDU's BITPIX, NAXIS and first three axis lengths, unchecked.
    private static func dimensions(_ file: UnsafeMutablePointer<stack_fits_file>,
                                   path: String) throws(StackerError) -> (bitpix: Int32, naxis: Int32, axes: (Int64, Int64, Int64)) {
        var bitpix: Int32 = 0, naxis: Int32 = 0, status: Int32 = 0
        var axes: (Int64, Int64, Int64) = (0, 0, 0)
        withUnsafeMutablePointer(to: &axes) { a in
            a.withMemoryRebound(to: Int64.self, capacity: 3) { p in
                _ = stack_fits_image_shape(file, &bitpix, &naxis, p, &status)
            }
        }
        guard status == 0 else { throw StackerError.unreadable(path: path, reason: reason(status)) }
        return (bitpix, naxis, axes)
    }

    /// The current HDU's NAXIS.
    private static func axisCount(_ file: UnsafeMutablePointer<stack_fits_file>, path: String) throws(StackerError) -> Int32 {
        try dimensions(file, path: path).naxis
    }

    /// BITPIX and axes of the current HDU's image, checked.
    private static func shape(_ file: UnsafeMutablePointer<stack_fits_file>, path: String) throws(StackerError) -> Header {
        let (bitpix, naxis, axes) = try dimensions(file, path: path)
        let channels: Int
        var frames = 1
        switch (naxis, axes.2) {
        case (2, _): channels = 1
        case (3, 1): channels = 1
        case (3, 3): channels = 3
        case (3, let n) where n > 1 && n <= Int64(Int32.max):
            channels = 1
            frames = Int(n)
        case (3, let n):
            throw StackerError.unreadable(path: path, reason: "the FITS cube has NAXIS3 = \(n): no planes to read")
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
        return Header(width: Int(axes.0), height: Int(axes.1), channels: channels, bitDepth: bitDepth,
                      bitpix: Int(bitpix), frames: frames)
    }

    /// The value of keyword `name` in the current header (a string without
    /// its quotes and trailing blanks), or nil when the header lacks it.
    private static func keyword(_ file: UnsafeMutablePointer<stack_fits_file>, _ name: String,
                                path: String) throws(StackerError) -> String? {
        var value = [CChar](repeating: 0, count: Int(STACK_FITS_VALUE_SIZE))
        var comment = [CChar](repeating: 0, count: Int(STACK_FITS_COMMENT_SIZE))
        var kind: CChar = 0, status: Int32 = 0
        let rc = value.withUnsafeMutableBufferPointer { v in
            comment.withUnsafeMutableBufferPointer { c in
                stack_fits_read_keyword(file, name, v.baseAddress, c.baseAddress, &kind, &status)
            }
        }
        if rc == STACK_FITS_KEY_MISSING { return nil }
        guard rc == 0 else { throw StackerError.unreadable(path: path, reason: reason(status)) }
        return CText.string(value)
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
