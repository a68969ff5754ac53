/// File formats stack reads and writes.
public enum ImageFormat: String, Sendable, CaseIterable {
    /// JPEG (8-bit, TurboJPEG).
    case jpeg
    /// PNG (8- or 16-bit, libpng).
    case png

    /// The format named by a path's extension (case-insensitive), or nil.
    public static func fromExtension(of path: String) -> ImageFormat? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: ".") else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "jpg", "jpeg": return .jpeg
        case "png": return .png
        default: return nil
        }
    }
}

/// A decoded file: pixels plus what we carry through to the output.
public struct DecodedImage: Sendable {
    /// Pixels, already turned upright by the EXIF orientation.
    public var image: Image
    /// Bits per sample in the file (8 or 16).
    public var bitDepth: Int
    /// The EXIF orientation tag found in the file (1…8; 1 when absent).
    public var orientation: Int
    /// The raw EXIF payload (the TIFF block after `Exif\0\0`) with its
    /// orientation reset to 1, or nil when the file has none.
    public var exif: [UInt8]?

    /// Creates a decoded image record.
    public init(image: Image, bitDepth: Int, orientation: Int = 1, exif: [UInt8]? = nil) {
        self.image = image
        self.bitDepth = bitDepth
        self.orientation = orientation
        self.exif = exif
    }
}

/// Encoder settings.
public struct EncodeOptions: Sendable {
    /// JPEG quality 1…100.
    public var quality: Int
    /// Bits per sample for formats that allow a choice (PNG: 8 or 16).
    public var bitDepth: Int
    /// EXIF payload (TIFF block) to embed in a JPEG output, or nil.
    public var exif: [UInt8]?

    /// Settings with the documented defaults (quality 95, 8-bit, no EXIF).
    public init(quality: Int = 95, bitDepth: Int = 8, exif: [UInt8]? = nil) {
        self.quality = quality
        self.bitDepth = bitDepth
        self.exif = exif
    }
}

/// Reading and writing image files. (Implementation in progress.)
public enum ImageFile {
    /// Reads and decodes the image at `path`.
    public static func read(_ path: String) throws -> DecodedImage {
        throw StackerError.unreadable(path: path, reason: "not implemented")
    }

    /// Encodes and atomically writes `image` to `path`; format from the extension.
    public static func write(_ image: Image, to path: String, options: EncodeOptions = EncodeOptions()) throws {
        throw StackerError.writeFailed(path: path, reason: "not implemented")
    }
}
