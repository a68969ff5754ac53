internal import CTIFF
import Registration

/// TIFF decoding and encoding through libtiff. The only file that imports
/// `CTIFF`; it calls only the `stack_tiff_…` functions of `CTIFF/shim.h`,
/// which read and write memory buffers and keep libtiff's messages per file
/// and off stderr. No C type leaves it.
///
/// Read: the first image of the file; 8- or 16-bit unsigned integer or
/// 32-bit IEEE float samples; gray (1 sample, or 2 = gray + alpha) or RGB
/// (3, or 4 = RGBA), alpha dropped; contiguous or separate planes, strips or
/// tiles, any compression this libtiff was built with (none, LZW, deflate,
/// PackBits, JPEG — YCbCr JPEG is converted to RGB —, zstd, …). Integer
/// values are scaled to 0…1 (/ 255, / 65535), floats are kept as stored
/// (NaN and ±infinity become 0). The Orientation tag is not applied.
/// Refused with a reason: palette, CMYK, min-is-white, 1/2/4/12-bit,
/// signed-integer and 64-bit float files; files whose strip or tile tables
/// disagree with the image geometry (the IFD's own count of offsets or byte
/// counts is not strips-or-tiles per plane × planes, an uncompressed strip
/// or tile is shorter than its rows, a strip or tile is over 16 MB and
/// larger than the whole image), which libtiff would otherwise repair
/// silently into shifted or mixed-up planes.
enum TIFFCodec {
    /// Little-endian classic TIFF (`II*\0`), big-endian (`MM\0*`), and the
    /// BigTIFF variants (`II+\0`, `MM\0+`), which libtiff reads too.
    static func hasMagic(_ b: [UInt8]) -> Bool {
        guard b.count >= 4 else { return false }
        return (b[0] == 0x49 && b[1] == 0x49 && (b[2] == 0x2A || b[2] == 0x2B) && b[3] == 0)
            || (b[0] == 0x4D && b[1] == 0x4D && b[2] == 0 && (b[3] == 0x2A || b[3] == 0x2B))
    }

    /// Size of the error message buffer handed to C.
    private static let messageSize = 256

    /// libtiff's process-wide handlers print to stderr; they are removed
    /// once, before the first call (everything else is per file).
    private static let globalHandlersSilenced: Void = stack_tiff_silence_global_handlers()

    /// What the first directory says: size, the channel count `decode`
    /// returns and the bit depth (8, 16, or 32 = float).
    struct Header {
        var width: Int
        var height: Int
        var channels: Int
        var bitDepth: Int
    }

    /// Reads the first directory only (no pixels) and applies the same
    /// layout checks as `decode`.
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func header(_ bytes: [UInt8], path: String) throws -> Header {
        _ = globalHandlersSilenced
        var layout = stack_tiff_layout()
        var message = [CChar](repeating: 0, count: messageSize)
        let rc = bytes.withUnsafeBufferPointer { b in
            message.withUnsafeMutableBufferPointer { m in
                stack_tiff_header(b.baseAddress, b.count, UInt64.max, &layout, m.baseAddress, m.count)
            }
        }
        try check(rc, layout: layout, message: message, maxPixels: Int.max, path: path)
        return Header(width: Int(layout.width), height: Int(layout.height),
                      channels: Int(layout.channels), bitDepth: Int(layout.bits))
    }

    /// Decodes the first image of a TIFF into planes (see the type's
    /// description). `bitDepth` is 8, 16 or 32 (float).
    /// - Throws: `StackerError.unreadable` naming `path`, also for images
    ///   over `maxPixels`, refused before their pixels are allocated.
    static func decode(_ bytes: [UInt8], path: String, maxPixels: Int) throws -> (image: Image, bitDepth: Int) {
        _ = globalHandlersSilenced
        var decoded = stack_tiff_image()
        var message = [CChar](repeating: 0, count: messageSize)
        let rc = bytes.withUnsafeBufferPointer { b in
            message.withUnsafeMutableBufferPointer { m in
                stack_tiff_decode(b.baseAddress, b.count, UInt64(clamping: maxPixels), &decoded, m.baseAddress, m.count)
            }
        }
        defer { stack_tiff_free(decoded.samples) }
        try check(rc, layout: decoded.layout, message: message, maxPixels: maxPixels, path: path)
        let layout = decoded.layout
        let width = Int(layout.width), height = Int(layout.height), channels = Int(layout.channels)
        guard let samples = decoded.samples, width > 0, height > 0, channels == 1 || channels == 3 else {
            throw StackerError.unreadable(path: path, reason: "the TIFF has no pixels")
        }
        let n = width * height
        let planes: [Plane] = (0..<channels).map { c in
            switch layout.bits {
            case 8:
                let start = samples.assumingMemoryBound(to: UInt8.self) + c * n
                return PixelConversion.planes(from: UnsafeBufferPointer(start: start, count: n),
                                              width: width, height: height, channels: 1)[0]
            case 16:
                let start = samples.assumingMemoryBound(to: UInt16.self) + c * n
                return PixelConversion.planes(from: UnsafeBufferPointer(start: start, count: n),
                                              width: width, height: height, channels: 1)[0]
            default:
                let start = samples.assumingMemoryBound(to: Float.self) + c * n
                return PixelConversion.plane(from: UnsafeBufferPointer(start: start, count: n),
                                             width: width, height: height)
            }
        }
        return (Image(width: width, height: height, planes: planes), Int(layout.bits))
    }

    /// Encodes `image` (1 plane → gray, 3 → RGB) as a deflate-compressed
    /// TIFF: `bitDepth` 8 or 16 (unsigned, clamped to 0…1 and rounded) or 32
    /// (IEEE float, values kept as they are, NaN as 0).
    ///
    /// libtiff stores EXIF rationals from single-precision floats, so an
    /// exposure of 1/125 s reads back as 1/125 to 7 digits, not exactly.
    ///
    /// `metadata`: the ICC profile goes into tag 34675, the XMP into tag 700,
    /// the IPTC into tag 33723 (as UNDEFINED bytes, libtiff's type for it).
    /// The EXIF block is not copied whole (its
    /// offsets point into itself): the entries `EXIFFields` reads are
    /// written again, Make, Model, DateTime, Artist and Copyright in the
    /// image's directory, the others (exposure time, f-number, exposure
    /// bias, focal length and its 35 mm equivalent, ISO, exposure program,
    /// flash, original and digitized dates, lens make and model, body serial
    /// number, and PixelXDimension/PixelYDimension stating the image's size)
    /// in an EXIF directory that
    /// tag 34665 points at. Everything else in it (GPS, maker notes,
    /// thumbnails) is dropped.
    /// - Throws: `StackerError.invalidInput` / `.writeFailed` naming `path`.
    static func encode(_ image: Image, bitDepth: Int, metadata: EmbeddedMetadata = EmbeddedMetadata(),
                       path: String) throws -> [UInt8] {
        _ = globalHandlersSilenced
        guard [8, 16, 32].contains(bitDepth) else {
            throw StackerError.invalidInput(path: path, reason: "TIFF bit depth must be 8, 16 or 32 (float), not \(bitDepth)")
        }
        guard image.width <= Int(UInt32.max), image.height <= Int(UInt32.max) else {
            throw StackerError.invalidInput(path: path, reason: "the image is too large for TIFF")
        }
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var message = [CChar](repeating: 0, count: messageSize)
        defer { stack_tiff_free(output) }
        func run(_ samples: UnsafeRawBufferPointer) -> Int32 {
            withMetadata(metadata, width: image.width, height: image.height) { m in
                message.withUnsafeMutableBufferPointer { msg in
                    stack_tiff_encode(samples.baseAddress, UInt32(image.width), UInt32(image.height),
                                      Int32(image.channels), Int32(bitDepth), m, &output, &size,
                                      msg.baseAddress, msg.count)
                }
            }
        }
        let rc: Int32
        switch bitDepth {
        case 8: rc = PixelConversion.interleaved8(image).withUnsafeBytes(run)
        case 16: rc = PixelConversion.interleaved16(image).withUnsafeBytes(run)
        default: rc = PixelConversion.interleavedFloat(image).withUnsafeBytes(run)
        }
        guard Int(rc) == Int(STACK_TIFF_OK), let output else {
            let detail = Int(rc) == Int(STACK_TIFF_NO_MEMORY) ? "out of memory" : CText.string(message)
            throw StackerError.writeFailed(path: path, reason: "TIFF encoding failed: \(detail)")
        }
        return [UInt8](UnsafeBufferPointer(start: output, count: size))
    }

    /// Calls `body` with `metadata` as the C struct `stack_tiff_encode`
    /// reads; its pointers are valid only inside `body`. With an EXIF
    /// block, PixelXDimension/PixelYDimension are `width` × `height`.
    private static func withMetadata<R>(_ metadata: EmbeddedMetadata, width: Int, height: Int,
                                        _ body: (UnsafePointer<stack_tiff_metadata>) -> R) -> R {
        let fields = metadata.exif.map { EXIFFields(tiff: $0) }
        let strings: [String?] = [fields?.make, fields?.model, fields?.dateTime, fields?.artist, fields?.copyright,
                                  fields?.dateTimeOriginal, fields?.dateTimeDigitized, fields?.lensMake,
                                  fields?.lensModel, fields?.bodySerial]
        // The strings, NUL-terminated, one after the other in one buffer.
        var text: [CChar] = []
        let starts: [Int?] = strings.map { string in
            guard let string else { return nil }
            defer { text += string.utf8.map { CChar(bitPattern: $0 == 0 ? 0x3F : $0) } + [0] }
            return text.count
        }
        let iptc = metadata.iptc ?? []
        let icc = metadata.icc ?? [], xmp = metadata.xmp ?? []
        return text.withUnsafeBufferPointer { t in
            icc.withUnsafeBufferPointer { iccBytes in
                xmp.withUnsafeBufferPointer { xmpBytes in
                    iptc.withUnsafeBufferPointer { iptcBytes in
                        func string(_ k: Int) -> UnsafePointer<CChar>? { starts[k].map { t.baseAddress! + $0 } }
                        var m = stack_tiff_metadata()
                        m.icc = iccBytes.baseAddress; m.icc_size = UInt32(clamping: icc.count)
                        m.xmp = xmpBytes.baseAddress; m.xmp_size = UInt32(clamping: xmp.count)
                        m.iptc = iptcBytes.baseAddress; m.iptc_size = UInt32(clamping: iptc.count)
                        m.make = string(0); m.model = string(1); m.date_time = string(2)
                        m.artist = string(3); m.copyright = string(4)
                        m.date_time_original = string(5); m.date_time_digitized = string(6)
                        m.lens_make = string(7); m.lens_model = string(8); m.body_serial = string(9)
                        m.exposure_time = fields?.exposureTime.map { max($0, 0) } ?? -1
                        m.f_number = fields?.fNumber.map { max($0, 0) } ?? -1
                        m.exposure_bias = fields?.exposureBias ?? .nan
                        m.focal_length = fields?.focalLength.map { max($0, 0) } ?? -1
                        func count(_ v: Int?) -> Int32 { v.map { Int32(clamping: $0) } ?? -1 }
                        m.iso = count(fields?.iso); m.focal_length_35mm = count(fields?.focalLength35mm)
                        m.exposure_program = count(fields?.exposureProgram); m.flash = count(fields?.flash)
                        m.pixel_x = count(fields.map { _ in width }); m.pixel_y = count(fields.map { _ in height })
                        return body(&m)
                    }
                }
            }
        }
    }

    /// Turns a `stack_tiff_…` result code into the error to throw, if any.
    private static func check(_ rc: Int32, layout: stack_tiff_layout, message: [CChar],
                              maxPixels: Int, path: String) throws {
        switch Int(rc) {
        case Int(STACK_TIFF_OK):
            return
        case Int(STACK_TIFF_TOO_LARGE):
            throw StackerError.unreadable(path: path, reason: JPEGCodec.tooLargeReason(
                width: Int(layout.width), height: Int(layout.height), maxPixels: maxPixels))
        case Int(STACK_TIFF_NO_MEMORY):
            throw StackerError.unreadable(path: path, reason: "out of memory decoding the TIFF")
        case Int(STACK_TIFF_UNSUPPORTED):
            throw StackerError.unreadable(path: path, reason: CText.string(message))
        default:
            throw StackerError.unreadable(path: path, reason: reason(for: CText.string(message)))
        }
    }

    /// A short sentence for a libtiff error message.
    static func reason(for message: String) -> String {
        if message == "truncated TIFF data" { return message }
        if message.isEmpty { return "corrupt TIFF data" }
        return "corrupt TIFF data (\(message))"
    }
}
