internal import CPNG
import Registration

/// PNG decoding and encoding through libpng. The only file that imports
/// `CPNG`; it calls only the `stack_png_…` functions of `CPNG/shim.h`,
/// which keep libpng's longjmp error handling inside C. No C type leaves it.
enum PNGCodec {
    /// The 8-byte PNG signature.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Size of the error message buffer handed to C.
    private static let messageSize = 256

    /// What IHDR says: size and the channel count `decode` returns
    /// (1 for gray / gray+alpha, 3 for RGB / RGBA / palette).
    struct Header {
        var width: Int
        var height: Int
        var channels: Int
    }

    /// Parses IHDR from the first 26 bytes of a PNG (no CRC check).
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func header(_ b: [UInt8], path: String) throws -> Header {
        guard b.count >= 26, b[0..<8].elementsEqual(signature),
              b[12...15].elementsEqual([0x49, 0x48, 0x44, 0x52]) else {
            throw StackerError.unreadable(path: path, reason: "truncated PNG data")
        }
        func u32(_ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
        let width = u32(16), height = u32(20)
        let channels: Int
        switch b[25] {
        case 0, 4: channels = 1
        case 2, 3, 6: channels = 3
        default: throw StackerError.unreadable(path: path, reason: "unknown PNG colour type \(b[25])")
        }
        guard width > 0, height > 0 else {
            throw StackerError.unreadable(path: path, reason: "the PNG header gives no image size")
        }
        return Header(width: width, height: height, channels: channels)
    }

    /// Decodes a PNG (any colour type, 1…16 bits, interlaced or not) into
    /// planes: alpha dropped, palette expanded to RGB, gray below 8 bits
    /// scaled to 8 bits; values / 255 or / 65535. `bitDepth` is 8 or 16.
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func decode(_ bytes: [UInt8], path: String, maxPixels: Int) throws -> (image: Image, bitDepth: Int) {
        var decoded = stack_png_image()
        var message = [CChar](repeating: 0, count: messageSize)
        let rc = bytes.withUnsafeBufferPointer { b in
            message.withUnsafeMutableBufferPointer { m in
                stack_png_decode(b.baseAddress, b.count, UInt64(clamping: maxPixels), &decoded, m.baseAddress, m.count)
            }
        }
        defer { stack_png_free(decoded.pixels) }
        switch Int(rc) {
        case Int(STACK_PNG_OK):
            break
        case Int(STACK_PNG_TOO_LARGE):
            throw StackerError.unreadable(path: path, reason: JPEGCodec.tooLargeReason(
                width: Int(decoded.width), height: Int(decoded.height), maxPixels: maxPixels))
        case Int(STACK_PNG_NO_MEMORY):
            throw StackerError.unreadable(path: path, reason: "out of memory decoding the PNG")
        default:
            throw StackerError.unreadable(path: path, reason: reason(for: CText.string(message)))
        }
        let width = Int(decoded.width), height = Int(decoded.height), channels = Int(decoded.channels)
        guard let pixels = decoded.pixels, width > 0, height > 0, channels == 1 || channels == 3 else {
            throw StackerError.unreadable(path: path, reason: "the PNG has no pixels")
        }
        let count = width * height * channels
        let planes: [Plane]
        if decoded.bit_depth == 16 {
            planes = pixels.withMemoryRebound(to: UInt16.self, capacity: count) {
                PixelConversion.planes(from: UnsafeBufferPointer(start: $0, count: count),
                                       width: width, height: height, channels: channels)
            }
        } else {
            planes = PixelConversion.planes(from: UnsafeBufferPointer(start: pixels, count: count),
                                            width: width, height: height, channels: channels)
        }
        return (Image(width: width, height: height, planes: planes), Int(decoded.bit_depth))
    }

    /// Encodes `image` (1 plane → gray, 3 → RGB) as a PNG of `bitDepth` 8 or
    /// 16 bits, with `metadata`'s EXIF in an eXIf chunk, its ICC profile in
    /// an iCCP chunk (left out when libpng finds it unfit for the image,
    /// such as an RGB profile on a gray image) and its XMP in an iTXt chunk
    /// keyed `XML:com.adobe.xmp` (up to its first NUL byte, which XML never
    /// holds). IPTC has no PNG chunk and is not written.
    /// - Throws: `StackerError.invalidInput` / `.writeFailed` naming `path`.
    static func encode(_ image: Image, bitDepth: Int, metadata: EmbeddedMetadata, path: String) throws -> [UInt8] {
        guard image.width <= Int(Int32.max), image.height <= Int(Int32.max) else {
            throw StackerError.invalidInput(path: path, reason: "the image is too large for PNG")
        }
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        var message = [CChar](repeating: 0, count: messageSize)
        defer { stack_png_free(output) }
        let exifBytes = metadata.exif ?? [], iccBytes = metadata.icc ?? []
        let xmpText: [CChar] = (metadata.xmp ?? []).map { CChar(bitPattern: $0) } + [0]
        func run(_ samples: UnsafeRawBufferPointer) -> Int32 {
            exifBytes.withUnsafeBufferPointer { e in
                iccBytes.withUnsafeBufferPointer { icc in
                    xmpText.withUnsafeBufferPointer { x in
                        message.withUnsafeMutableBufferPointer { m in
                            stack_png_encode(samples.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                             UInt32(image.width), UInt32(image.height),
                                             Int32(image.channels), Int32(bitDepth),
                                             e.baseAddress, UInt32(clamping: e.count),
                                             icc.baseAddress, UInt32(clamping: icc.count), x.baseAddress,
                                             &output, &size, m.baseAddress, m.count)
                        }
                    }
                }
            }
        }
        let rc: Int32
        if bitDepth == 16 {
            rc = PixelConversion.interleaved16(image).withUnsafeBytes(run)
        } else {
            rc = PixelConversion.interleaved8(image).withUnsafeBytes(run)
        }
        guard Int(rc) == Int(STACK_PNG_OK), let output else {
            let detail = Int(rc) == Int(STACK_PNG_NO_MEMORY) ? "out of memory" : CText.string(message)
            throw StackerError.writeFailed(path: path, reason: "PNG encoding failed: \(detail)")
        }
        return [UInt8](UnsafeBufferPointer(start: output, count: size))
    }

    /// The zlib stream `bytes` inflated, or nil when it is corrupt,
    /// truncated or inflates past `limit` bytes (never allocating more).
    static func inflate(_ bytes: ArraySlice<UInt8>, limit: Int) -> [UInt8]? {
        var size = 0
        guard let out = bytes.withUnsafeBufferPointer({ b in
            stack_png_inflate(b.baseAddress, b.count, limit, &size)
        }) else { return nil }
        defer { stack_png_free(out) }
        return [UInt8](UnsafeBufferPointer(start: out, count: size))
    }

    /// A short sentence for a libpng error message. libpng names the chunk
    /// first ("IDAT: CRC error").
    static func reason(for message: String) -> String {
        if message == "truncated PNG data" { return message }
        if message.hasSuffix(": CRC error") {
            return "PNG CRC error in chunk \(message.dropLast(": CRC error".count))"
        }
        if message.isEmpty { return "corrupt PNG data" }
        return "corrupt PNG data (\(message))"
    }
}
