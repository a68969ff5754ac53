internal import CLibRaw
import Registration

/// One LibRaw handle over a file held in memory, closed in `deinit`. LibRaw
/// reads the caller's bytes without copying them, so the handle must not
/// outlive the buffer: `RAWCodec` opens and drops it inside one
/// `withUnsafeBufferPointer`.
private final class LibRawHandle {
    let raw: UnsafeMutablePointer<stack_raw_handle>

    /// Loads LibRaw on first use, then opens and identifies `bytes` (no
    /// pixels are decoded).
    /// The corresponding C functions are `libraw_init` and `libraw_open_buffer`.
    /// - Throws: `StackerError.unreadable` naming `path` and the raw `family`.
    init(_ bytes: UnsafeBufferPointer<UInt8>, family: String, path: String) throws {
        guard stack_raw_load() != 0 else {
            throw StackerError.unreadable(path: path, reason: "camera raw (\(family)) needs LibRaw 0.20 (libraw_r.so.20), which is not installed: apt-get install libraw20")
        }
        var error: Int32 = 0
        guard let handle = stack_raw_open(bytes.baseAddress, bytes.count, &error) else {
            throw StackerError.unreadable(path: path, reason: "out of memory opening the camera raw (\(family))")
        }
        raw = handle
        if error != 0 { throw RAWCodec.failure(error, family: family, path: path) }
    }

    deinit { stack_raw_close(raw) }

    /// The file's facts (sizes, pattern, levels, colour, capture).
    var facts: stack_raw_facts {
        var facts = stack_raw_facts()
        stack_raw_read_facts(raw, &facts)
        return facts
    }
}

/// Camera raw files (CR2, CR3, NEF, ARW, RAF, ORF, RW2, PEF, DNG and the rest
/// LibRaw 0.20 knows), read through LibRaw from memory.
///
/// A 2 × 2 RGB Bayer sensor gives its unprocessed mosaic: one channel, the
/// visible area only (LibRaw's margins cut off), each sample
/// `(v − black) / (white − black)` with `black` that pixel's black level
/// (LibRaw's common `black`, plus its CFA colour's `cblack`, plus a
/// repeating black pattern where the file has one) and `white` the white
/// level (`maximum`); no demosaicing, no white balance, no clipping (noise
/// below black stays negative in floats). `cfa` is the pattern at the
/// upright top-left pixel: the camera's orientation (`sizes.flip`) turns the
/// mosaic, and the pattern is read from the turned mosaic, so it stays true.
/// `bitDepth` is 16.
///
/// Any other sensor — Fujifilm X-Trans (6 × 6), four-colour (CMYG) or Leaf
/// patterns, Foveon, linear DNG and sRAW files that are already RGB — goes
/// through LibRaw's own processing instead (`dcraw_process`: its demosaic
/// for the pattern, as-shot white balance, camera matrix to sRGB, linear
/// 16-bit), upright, three channels, no `cfa`; `RAWMetadata.demosaicedByLibRaw`
/// says so.
///
/// Files over `maxPixels` are refused from the sizes LibRaw reads before it
/// unpacks anything. Files LibRaw cannot open or unpack — metadata-only
/// samples, truncated or damaged data — are refused in one line naming the
/// raw family and LibRaw's reason; no preview is ever decoded instead.
enum RAWCodec {
    /// Decodes the camera raw file `bytes` of `family` ("Nikon NEF", from
    /// `UnsupportedFormat.rawName`).
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func decode(_ bytes: [UInt8], family: String, path: String, maxPixels: Int) throws -> DecodedImage {
        try bytes.withUnsafeBufferPointer { buffer in
            let handle = try LibRawHandle(buffer, family: family, path: path)
            let opened = handle.facts
            try JPEGCodec.checkSize(width: Int(opened.width), height: Int(opened.height), maxPixels: maxPixels, path: path)
            try checkHoldsSensorData(opened, fileSize: bytes.count, family: family, path: path)
            let error = stack_raw_unpack(handle.raw)
            if error != 0 { throw failure(error, family: family, path: path) }
            if stack_raw_data_error(handle.raw) != 0 {
                throw StackerError.unreadable(path: path, reason: "camera raw (\(family)): its sensor data is damaged or cut short")
            }
            let facts = handle.facts
            guard let layout = bayerLayout(handle, facts) else {
                return try processed(handle, facts, family: family, path: path)
            }
            guard facts.has_mosaic != 0 else {
                throw StackerError.unreadable(path: path, reason: "camera raw (\(family)): LibRaw gave no sensor mosaic")
            }
            return try mosaic(handle, facts, layout: layout, family: family, path: path)
        }
    }

    /// The upright size and channel count `decode` gives (1 for a Bayer
    /// mosaic, 3 for what LibRaw demosaics), from the file's identification
    /// alone (nothing is unpacked).
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func header(_ bytes: [UInt8], family: String, path: String) throws -> (width: Int, height: Int, channels: Int) {
        try bytes.withUnsafeBufferPointer { buffer in
            let handle = try LibRawHandle(buffer, family: family, path: path)
            let facts = handle.facts
            let w = Int(facts.width), h = Int(facts.height)
            let swap = facts.flip & 4 != 0
            return (swap ? h : w, swap ? w : h, bayerLayout(handle, facts) == nil ? 3 : 1)
        }
    }

    /// The fewest bits per sensor pixel a file can hold its sensor data in:
    /// lossless raw codecs (Huffman-coded LJPEG, Nikon's, Sony's) spend at
    /// least 1 bit a sample, lossy DNG about 2; half a bit leaves a margin.
    static let minimumBitsPerPixel = 0.5

    /// Refuses a file too small for its sensor: LibRaw unpacks the missing
    /// rows of a metadata-only sample (ExifTool's test files keep the
    /// header of an 8 MP DNG or RW2 in 13 KB) as zeros, without an error.
    private static func checkHoldsSensorData(_ facts: stack_raw_facts, fileSize: Int, family: String, path: String) throws {
        let pixels = Double(facts.raw_width) * Double(facts.raw_height)
        guard Double(fileSize) * 8 >= pixels * minimumBitsPerPixel else {
            throw StackerError.unreadable(path: path, reason: "camera raw (\(family)) of \(fileSize) bytes, too small for its \(facts.raw_width)×\(facts.raw_height) sensor: a metadata-only sample or a truncated file")
        }
    }

    /// The EXIF orientation (1…8) of dcraw's `flip` (bit 4 transposes,
    /// bit 2 flips the rows, bit 1 the columns).
    static func exifOrientation(flip: Int) -> Int {
        // dcraw reads EXIF orientation o as flip "50132467"[o & 7]; this is its inverse.
        [0: 1, 1: 2, 3: 3, 2: 4, 4: 5, 6: 6, 7: 7, 5: 8][flip & 7] ?? 1
    }

    /// The channel (0 R, 1 G, 2 B) of each of the four top-left visible
    /// pixels, row by row, and LibRaw's colour index of each, when the
    /// sensor is a 2 × 2 RGB Bayer mosaic (two greens on a diagonal); nil
    /// otherwise.
    private static func bayerLayout(_ handle: LibRawHandle, _ facts: stack_raw_facts) -> (channels: [Int], indices: [Int])? {
        guard facts.filters > 999 else { return nil }
        let letters = withUnsafeBytes(of: facts.cdesc) { Array($0.prefix(4)) }
        func channel(_ index: Int32) -> Int? {
            guard (0..<4).contains(index) else { return nil }
            switch letters[Int(index)] {
            case UInt8(ascii: "R"): return 0
            case UInt8(ascii: "G"): return 1
            case UInt8(ascii: "B"): return 2
            default: return nil
            }
        }
        // LibRaw's filters describe 8 rows × 2 columns; a Bayer sensor repeats every 2.
        for row in 0..<8 {
            for col in 0..<2 {
                guard let a = channel(stack_raw_color(handle.raw, Int32(row), Int32(col))),
                      a == channel(stack_raw_color(handle.raw, Int32(row & 1), Int32(col))) else { return nil }
            }
        }
        let indices = (0..<4).map { Int(stack_raw_color(handle.raw, Int32($0 >> 1), Int32($0 & 1))) }
        let channels = indices.compactMap { channel(Int32($0)) }
        guard channels.count == 4, BayerPattern.allCases.contains(where: { $0.channels == channels }) else { return nil }
        return (channels, indices)
    }

    /// The visible mosaic, black-subtracted and scaled, turned upright.
    private static func mosaic(_ handle: LibRawHandle, _ facts: stack_raw_facts, layout: (channels: [Int], indices: [Int]),
                               family: String, path: String) throws -> DecodedImage {
        let w = Int(facts.width), h = Int(facts.height)
        var samples = [UInt16](repeating: 0, count: w * h)
        guard samples.withUnsafeMutableBufferPointer({ stack_raw_copy_mosaic(handle.raw, $0.baseAddress) }) == 0 else {
            throw StackerError.unreadable(path: path, reason: "camera raw (\(family)): the visible area lies outside the sensor data")
        }
        guard stack_raw_black_pattern_too_large(handle.raw) == 0 else {
            throw StackerError.unreadable(path: path, reason: "camera raw (\(family)): its black-level pattern is larger than 64 values")
        }
        let levels = try BlackAndWhite(facts, indices: layout.indices, family: family, path: path)
        let stored = Plane(width: w, height: h, pixels: levels.scaled(samples, width: w, height: h))
        let orientation = exifOrientation(flip: Int(facts.flip))
        let upright = Orientation.apply(orientation, to: stored)
        return DecodedImage(image: Image(width: upright.width, height: upright.height, planes: [upright]), bitDepth: 16,
                            orientation: orientation,
                            cfa: uprightPattern(layout.channels, width: w, height: h, orientation: orientation),
                            raw: metadata(facts, demosaiced: false))
    }

    /// The Bayer pattern at the top-left of the mosaic turned by EXIF
    /// `orientation`, whose stored top-left 2 × 2 channels are `channels`:
    /// a probe of the mosaic's parity (2 or 3 pixels a side) is turned the
    /// same way and read at its new top-left.
    static func uprightPattern(_ channels: [Int], width: Int, height: Int, orientation: Int) -> BayerPattern? {
        let pw = 2 + width % 2, ph = 2 + height % 2
        let probe = (0..<(pw * ph)).map { channels[(($0 / pw) & 1) << 1 | ($0 % pw) & 1] }
        let (tw, _, turned) = Orientation.apply(orientation, to: probe, width: pw, height: ph)
        let corner = [turned[0], turned[1], turned[tw], turned[tw + 1]]
        return BayerPattern.allCases.first { $0.channels == corner }
    }

    /// A sensor LibRaw demosaics itself, as linear sRGB, upright.
    private static func processed(_ handle: LibRawHandle, _ facts: stack_raw_facts, family: String, path: String) throws -> DecodedImage {
        var error: Int32 = 0
        guard let image = stack_raw_process(handle.raw, &error) else {
            throw failure(error == 0 ? Int32(LIBRAW_UNSPECIFIED_ERROR.rawValue) : error, family: family, path: path)
        }
        defer { stack_raw_free_image(image) }
        let w = Int(stack_raw_image_width(image)), h = Int(stack_raw_image_height(image))
        let rgb = UnsafeBufferPointer(start: stack_raw_image_samples(image), count: 3 * w * h)
        let planes = (0..<3).map { c in
            Plane(width: w, height: h, pixels: (0..<(w * h)).map { Float(rgb[3 * $0 + c]) / 65535 })
        }
        return DecodedImage(image: Image(width: w, height: h, planes: planes), bitDepth: 16,
                            raw: metadata(facts, demosaiced: true))
    }

    /// The capture and colour facts of `facts`.
    private static func metadata(_ facts: stack_raw_facts, demosaiced: Bool) -> RAWMetadata {
        let letters = withUnsafeBytes(of: facts.cdesc) { Array($0.prefix(4)) }
        let multipliers = withUnsafeBytes(of: facts.cam_mul) { Array($0.bindMemory(to: Float.self)) }
        let matrix = withUnsafeBytes(of: facts.rgb_cam) { Array($0.bindMemory(to: Float.self)) }  // 3 rows of 4
        // The first colour index carrying each of R, G, B.
        let index = [UInt8(ascii: "R"), UInt8(ascii: "G"), UInt8(ascii: "B")].map { letters.firstIndex(of: $0) }
        var whiteBalance: [Float]?
        if index.allSatisfy({ $0 != nil }) {
            let m = index.map { multipliers[$0!] }
            if m.allSatisfy({ $0 > 0 && $0.isFinite }) { whiteBalance = m.map { $0 / m[1] } }
        }
        let columns = index.enumerated().map { $0.element ?? $0.offset }
        let cameraToSRGB = (0..<3).flatMap { row in columns.map { matrix[4 * row + $0] } }
        return RAWMetadata(make: text(facts.make), model: text(facts.model), iso: facts.iso, shutter: facts.shutter,
                           timestamp: Int(facts.timestamp), whiteBalance: whiteBalance, cameraToSRGB: cameraToSRGB,
                           demosaicedByLibRaw: demosaiced)
    }

    /// The text of a fixed C character array.
    private static func text<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { CText.string(Array($0.bindMemory(to: CChar.self))) }
    }

    /// The refusal for LibRaw error `code`.
    fileprivate static func failure(_ code: Int32, family: String, path: String) -> StackerError {
        let detail = String(cString: stack_raw_error_text(code))
        return StackerError.unreadable(path: path, reason: "camera raw (\(family)) that LibRaw cannot read (\(detail))")
    }

    /// Per-pixel black levels and the white level of a Bayer mosaic.
    private struct BlackAndWhite {
        /// Black of each of the 2 × 2 top-left positions (common + per colour).
        let black: [Float]
        /// A repeating pattern added to it, `rows` × `cols` (empty when none).
        let pattern: [Float], rows: Int, cols: Int
        let white: Float

        init(_ facts: stack_raw_facts, indices: [Int], family: String, path: String) throws {
            let perColour = withUnsafeBytes(of: facts.cblack) { Array($0.bindMemory(to: UInt32.self)) }
            var black = indices.map { Float(facts.black) + Float(perColour[$0]) }
            var rows = Int(facts.cblack_rows), cols = Int(facts.cblack_cols)
            let all = withUnsafeBytes(of: facts.cblack_pattern) { Array($0.bindMemory(to: UInt32.self)) }
            var pattern = rows * cols > 0 ? all.prefix(rows * cols).map { Float($0) } : []
            // A pattern of 1 or 2 a side repeats within the 2 × 2 table: fold it in.
            if !pattern.isEmpty, rows <= 2, cols <= 2 {
                black = (0..<4).map { black[$0] + pattern[(($0 >> 1) % rows) * cols + ($0 & 1) % cols] }
                (pattern, rows, cols) = ([], 0, 0)
            }
            self.black = black
            self.pattern = pattern
            self.rows = rows
            self.cols = cols
            white = Float(facts.maximum)
            let darkest = (0..<4).map { i in black[i] + (pattern.max() ?? 0) }.max() ?? 0
            guard white > darkest else {
                throw StackerError.unreadable(path: path, reason: "camera raw (\(family)): its white level \(facts.maximum) is not above its black level")
            }
        }

        /// `(v − black) / (white − black)` for every stored sample.
        func scaled(_ samples: [UInt16], width w: Int, height h: Int) -> [Float] {
            let range = black.map { white - $0 }  // divided by, not multiplied by its reciprocal: exact to the last bit
            return [Float](unsafeUninitializedCapacity: w * h) { out, count in
                samples.withUnsafeBufferPointer { src in
                    for y in 0..<h {
                        let row = (y & 1) << 1
                        for x in 0..<w {
                            var b = black[row | (x & 1)]
                            if pattern.isEmpty {
                                out[y * w + x] = (Float(src[y * w + x]) - b) / range[row | (x & 1)]
                            } else {
                                b += pattern[(y % rows) * cols + x % cols]
                                out[y * w + x] = (Float(src[y * w + x]) - b) / (white - b)
                            }
                        }
                    }
                }
                count = w * h
            }
        }
    }
}
