/// File formats stack reads and writes.
public enum ImageFormat: String, Sendable, CaseIterable {
    /// JPEG (8-bit, TurboJPEG).
    case jpeg
    /// PNG (8- or 16-bit, libpng).
    case png
    /// TIFF (8- or 16-bit integer, 32-bit float; libtiff).
    case tiff
    /// FITS (BITPIX 8, 16, 32, -32, -64; cfitsio).
    case fits
    /// HEIF: read as HEIC, HEIF, HIF and AVIF (libheif, see `HEIFCodec`);
    /// written as HEIC (HEVC, 8- or 10-bit).
    case heif

    /// The format named by a path's extension (case-insensitive), or nil.
    public static func fromExtension(of path: some FilePathConvertible) -> ImageFormat? {
        switch path.filePath.lowercasedExtension ?? "" {
        case "jpg", "jpeg": return .jpeg
        case "png": return .png
        case "tif", "tiff": return .tiff
        case "fits", "fit", "fts": return .fits
        case "heic", "heif", "hif": return .heif
        default: return nil
        }
    }

    /// The format announced by the first bytes of a file (its "magic"), or nil.
    /// JPEG: `FF D8 FF`; PNG: the 8-byte PNG signature; TIFF: `II*\0` or
    /// `MM\0*` (BigTIFF: `II+\0`, `MM\0+`); FITS: `SIMPLE  =`; HEIF: an
    /// `ftyp` box with a HEIF brand (`HEIFCodec.hasMagic`, AVIF included).
    public static func fromMagic(_ bytes: [UInt8]) -> ImageFormat? {
        if bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF { return .jpeg }
        if bytes.count >= 8 && bytes[0..<8].elementsEqual(PNGCodec.signature) { return .png }
        if TIFFCodec.hasMagic(bytes) { return .tiff }
        if FITSCodec.hasMagic(bytes) { return .fits }
        if HEIFCodec.hasMagic(bytes) { return .heif }
        return nil
    }

    /// The extensions `fromExtension` knows, for messages.
    static let extensionList = ".jpg, .jpeg, .png, .tif, .tiff, .heic, .heif, .hif, .fits, .fit or .fts"

    /// Bits per sample this format can write: JPEG 8; PNG 8, 16; HEIC 8, 16
    /// (stored as 10-bit); TIFF and FITS 8, 16, 32 (32-bit float).
    public var bitDepths: [Int] {
        switch self {
        case .jpeg: return [8]
        case .png, .heif: return [8, 16]
        case .tiff, .fits: return [8, 16, 32]
        }
    }

    /// `depth` when this format can write it, else the nearest depth it can
    /// (32 → 16 for PNG, anything → 8 for JPEG).
    public func bitDepth(nearestTo depth: Int) -> Int {
        bitDepths.min { abs($0 - depth) < abs($1 - depth) } ?? 8
    }

    /// What reading accepts, for messages: the formats `fromMagic` knows
    /// (the HEIF family among them, AVIF included; see `HEIFCodec`) and SER
    /// videos (`SERCodec`).
    static let nameList = "a JPEG, PNG, TIFF, FITS, HEIF/AVIF or SER file"
}

/// A decoded file: pixels plus what we carry through to the output.
public struct DecodedImage: Sendable {
    /// Pixels, already turned upright by the EXIF orientation.
    public var image: Image
    /// Bits per sample in the file: 8, 16, or 32. 32 means samples that need
    /// more than 16 bits: 32-bit float (TIFF, FITS BITPIX -32 / -64) or
    /// FITS 32-bit integer; outputs write it as 32-bit float.
    public var bitDepth: Int
    /// The orientation applied on reading (1…8; 1 when absent): a JPEG's
    /// or PNG's EXIF (a PNG without eXIf: its XMP `tiff:Orientation`), a
    /// TIFF's tag 274; always 1 for HEIF, whose
    /// `irot`/`imir` boxes libheif applies instead.
    public var orientation: Int
    /// The raw EXIF payload (the TIFF block after `Exif\0\0`) with its
    /// orientation reset to 1, or nil when the file has none.
    public var exif: [UInt8]?
    /// FITS header keywords worth carrying to the output (EXPTIME, DATE-OBS,
    /// OBJECT, …; see `FITSKeyword`); empty for other formats.
    public var keywords: [FITSKeyword]
    /// For a one-channel CFA mosaic whose file says so (FITS `BAYERPAT`, a camera raw),
    /// its pattern at the upright image's top-left pixel; else nil. The
    /// image itself stays the mosaic: the pipeline debayers it after
    /// calibration.
    public var cfa: BayerPattern?
    /// The embedded ICC profile, byte for byte, or nil: a JPEG's APP2
    /// pieces joined, a PNG's iCCP (or, for an RGB PNG without iCCP or
    /// sRGB chunks, a profile made from its cHRM and gAMA), a TIFF's tag
    /// 34675, a HEIF's `colr` box.
    public var iccProfile: [UInt8]?
    /// The embedded XMP packet (the XML, without any container prefix), or
    /// nil: a JPEG's APP1 packet, a PNG's `XML:com.adobe.xmp` iTXt, a
    /// TIFF's tag 700.
    public var xmp: [UInt8]?
    /// The embedded IPTC-IIM block (the datasets a JPEG's Photoshop APP13
    /// resource 0x0404 holds, a TIFF's tag 33723), or nil. Each of these
    /// three is dropped when over `EmbeddedMetadata.maxBytes` (4 MiB).
    public var iptc: [UInt8]?
    /// For a camera raw file (`RAWCodec`), its capture and colour facts
    /// (white balance, camera matrix, make, model, ISO, shutter, time); nil
    /// for other files.
    public var raw: RAWMetadata?
    /// For integer FITS data, the smallest and largest stored value (after
    /// BZERO and BSCALE, in the file's own units, ADU); nil for other files.
    public var storedRange: ClosedRange<Double>?

    /// Creates a decoded image record.
    public init(image: Image, bitDepth: Int, orientation: Int = 1, exif: [UInt8]? = nil,
                keywords: [FITSKeyword] = [], cfa: BayerPattern? = nil, iccProfile: [UInt8]? = nil,
                xmp: [UInt8]? = nil, iptc: [UInt8]? = nil, raw: RAWMetadata? = nil) {
        self.image = image
        self.bitDepth = bitDepth
        self.orientation = orientation
        self.exif = exif
        self.keywords = keywords
        self.cfa = cfa
        self.iccProfile = iccProfile
        self.xmp = xmp
        self.iptc = iptc
        self.raw = raw
    }
}

/// Encoder settings.
public struct EncodeOptions: Sendable {
    /// JPEG and HEIC quality 1…100. Quality ≥ 90 encodes chroma at full
    /// resolution (4:4:4), below 90 at quarter resolution (4:2:0).
    public var quality: Int
    /// Bits per sample for formats that allow a choice: 8, 16, or 32 =
    /// 32-bit float. TIFF and FITS: 8, 16 or 32 (anything else is invalid
    /// input). PNG: 16 when this is 16 or 32 (PNG has no float samples, so
    /// 32 falls back to the nearest depth it has), else 8. HEIC: 10-bit when
    /// this is 16 or 32, else 8. JPEG is always 8-bit.
    public var bitDepth: Int
    /// EXIF payload (TIFF block) to embed in the output, or nil; its
    /// Orientation is set to 1 (the pixels are written upright) and its
    /// ImageWidth/ImageLength and PixelXDimension/PixelYDimension, where
    /// present, to the image's size (`EXIF.forOutput`). JPEG:
    /// an APP1 segment right after SOI (dropped when larger than the 65 527
    /// bytes a segment can hold); PNG: an eXIf chunk; HEIC: an `Exif` item;
    /// TIFF: its common entries rewritten into the file's own directories
    /// (see `TIFFCodec.encode`). FITS ignores it.
    public var exif: [UInt8]?
    /// FITS header keywords to write after the structural ones; structural
    /// names (SIMPLE, BITPIX, NAXIS…, BZERO, BSCALE, EXTEND, …) and malformed
    /// keywords are skipped. Other formats ignore them.
    public var keywords: [FITSKeyword]
    /// Threads a JPEG of more than about 1 MP is compressed on (strip by
    /// strip, see `JPEGStrips`); the bytes do not depend on it.
    public var threads: Int
    /// ICC profile to embed, byte for byte, or nil. JPEG: APP2
    /// `ICC_PROFILE` segments (split when larger than one holds; see
    /// `JPEGMetadataSegments`); PNG: iCCP (libpng compresses it); TIFF: tag
    /// 34675; HEIC: a `colr` box of type `prof`. FITS ignores it.
    public var iccProfile: [UInt8]? = nil
    /// XMP packet to embed, or nil. JPEG: APP1 `http://ns.adobe.com/xap/1.0/`
    /// (dropped when larger than one segment holds); PNG: iTXt
    /// `XML:com.adobe.xmp`; TIFF: tag 700; HEIC: a `mime` item. FITS ignores it.
    public var xmp: [UInt8]? = nil
    /// IPTC-IIM block to embed, or nil. JPEG: APP13 `Photoshop 3.0` with an
    /// 8BIM resource 0x0404 (dropped when larger than one segment holds);
    /// TIFF: tag 33723. PNG, HEIC and FITS have no place for it.
    public var iptc: [UInt8]? = nil

    /// Settings with the documented defaults (quality 95, 8-bit, no EXIF, no
    /// keywords, all cores).
    public init(quality: Int = 95, bitDepth: Int = 8, exif: [UInt8]? = nil, keywords: [FITSKeyword] = [],
                threads: Int = Platform.processorCount) {
        self.quality = quality
        self.bitDepth = bitDepth
        self.exif = exif
        self.keywords = keywords
        self.threads = threads
    }
}

/// Reading and writing image files (JPEG through TurboJPEG, PNG through
/// libpng, TIFF through libtiff, FITS through cfitsio, HEIF through libheif:
/// the family read, HEIC written). All functions are
/// thread-safe; each call uses its own codec state.
///
/// Reading detects the format from the file's first bytes, not its name.
/// Integer samples become `Float` in 0…1 (file value / 255 or / 65535),
/// float samples (TIFF, FITS) are kept as stored; planar, 1 plane for gray
/// files and 3 (R, G, B) otherwise; alpha is dropped, palettes and 1/2/4-bit
/// gray PNG are expanded. The orientation is applied so the image is
/// upright: a JPEG's EXIF, a PNG's eXIf chunk, a TIFF's Orientation tag
/// (274), a HEIF's `irot`/`imir`; FITS rows are flipped (FITS stores the bottom row first).
/// See `TIFFCodec` and `FITSCodec` for what those formats accept.
///
/// Decisions:
/// - CMYK / YCCK JPEG files are refused ("CMYK JPEG files are not supported"):
///   converting them needs the ICC profile to be right, and cameras do not
///   produce them.
/// - Damaged JPEG data is refused even when TurboJPEG can finish with only a
///   warning (a truncated file decodes with grey or smeared rows, which would
///   poison a stack). The one warning accepted is "extraneous bytes before
///   marker", which some cameras produce in otherwise intact files.
/// - Malformed EXIF never makes a file unreadable: the pixels are decoded
///   as stored, `orientation` is 1 and `exif` is nil.
/// - Images over `maxPixels` (width × height) are refused from the header,
///   before any pixel buffer is allocated.
/// - Camera raw files (also TIFF-structured ones such as DNG and NEF, which
///   would otherwise give their small preview) are recognised first and read
///   through LibRaw (`RAWCodec`): the sensor's CFA mosaic, or LibRaw's own
///   demosaic for X-Trans and other non-Bayer sensors.
/// - JPEG XL and gzip files are refused by name (`UnsupportedFormat`).
public enum ImageFile: Sendable {
    /// The default pixel limit for reading: 500 megapixels (6 GB as 3-plane
    /// `Float`). Larger than any camera frame (pixel-shift modes reach about
    /// 400 MP), small enough to refuse decompression bombs such as a
    /// 65 535 × 65 535 JPEG header.
    public static let defaultMaxPixels = 500_000_000

    /// Reads and decodes the image at `path` (JPEG, PNG, TIFF, FITS, or a
    /// HEIF file's primary image, detected from the file's first bytes).
    /// - Parameter maxPixels: refuse images with more than this many pixels
    ///   (width × height), checked before the pixels are allocated.
    /// - Throws: `StackerError.unreadable` naming `path`.
    public static func read(_ path: some FilePathConvertible,
                            maxPixels: Int = ImageFile.defaultMaxPixels) throws -> DecodedImage {
        let path = path.filePath
        let bytes = try FileBytes.read(path)
        return try decode(bytes: bytes, path: path.description, maxPixels: maxPixels)
    }

    /// How many frames the file at `path` holds: 1 for an ordinary image,
    /// more for a file that holds a sequence (`FrameSource.frames(in:)`
    /// expands it): a FITS cube's NAXIS3 planes (see `FITSCodec`), a SER
    /// video's FrameCount, checked against the file's size (see `SERCodec`),
    /// a HEIF file's top-level images (a burst saved in one file; see
    /// `HEIFCodec`). Reads no more than the formats' headers need (a HEIF
    /// file's boxes, no pixels).
    /// - Throws: `StackerError.unreadable` naming `path`.
    public static func frameCount(_ path: some FilePathConvertible) throws -> Int {
        let file = path.filePath
        let magic = try FileBytes.read(file, limit: 64)
        if SERCodec.hasMagic(magic) { return try SERCodec.header(of: file).frameCount }
        if HEIFCodec.hasMagic(magic) { return try HEIFCodec.frameCount(try FileBytes.read(file), path: file.description) }
        switch ImageFormat.fromMagic(magic) {
        case .fits:
            // A FITS cube: NAXIS3 planes (see FITSCodec).
            let prefixSize = 1 << 20
            let prefix = try FileBytes.read(file, limit: prefixSize)
            return try withWholeFile(file, prefix: prefix, prefixSize: prefixSize) {
                try FITSCodec.header($0, path: file.description).frames
            }
        default:
            return 1
        }
    }

    /// Decodes frame `index` (from 0) of the file at `path`; for a file of
    /// one frame, index 0 is `read(_:maxPixels:)`. A SER frame is read alone
    /// (one `pread`); a FITS file's frame (a cube's plane) from its header
    /// records and that frame's data alone; a HEIF file's top-level image
    /// `index` in file order.
    /// - Throws: `StackerError.unreadable` naming `path`, also when the file
    ///   has no such frame.
    public static func readFrame(_ index: Int, of path: some FilePathConvertible,
                                 maxPixels: Int = ImageFile.defaultMaxPixels) throws -> DecodedImage {
        let file = path.filePath
        // A SER video or a FITS file: only this frame's bytes are read (a
        // FITS cube's frame k is its plane k).
        let head = try FileBytes.read(file, limit: 16)
        if SERCodec.hasMagic(head) {
            return try SERCodec.readFrame(index, of: file, maxPixels: maxPixels)
        }
        if FITSCodec.hasMagic(head) {
            return try FITSCodec.readFrame(index, of: file, maxPixels: maxPixels)
        }
        let bytes = try FileBytes.read(file)
        if HEIFCodec.hasMagic(bytes) {
            return try HEIFCodec.decode(bytes, frame: index, path: file.description, maxPixels: maxPixels)
        }
        guard index == 0 else {
            throw StackerError.unreadable(path: file.description, reason: "the file holds one frame, not a frame \(index)")
        }
        return try decode(bytes: bytes, path: file.description, maxPixels: maxPixels)
    }

    /// The depth maps and other auxiliary images (portrait mattes, HDR gain
    /// maps; not alpha) a HEIF-family file attaches to its primary image,
    /// depth maps first, each decoded as one 0…1 plane at its own size. Other
    /// formats attach none we read: empty.
    /// - Throws: `StackerError.unreadable` naming `path`.
    public static func auxiliaryImages(_ path: some FilePathConvertible,
                                       maxPixels: Int = ImageFile.defaultMaxPixels) throws -> [AuxiliaryImage] {
        let file = path.filePath
        guard HEIFCodec.hasMagic(try FileBytes.read(file, limit: 64)) else { return [] }
        return try HEIFCodec.auxiliaryImages(try FileBytes.read(file), path: file.description, maxPixels: maxPixels)
    }

    /// Decodes a JPEG, PNG, TIFF, FITS or HEIF-family file held in memory
    /// (a HEIF file's primary image).
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - path: the name used in errors.
    ///   - maxPixels: refuse images with more than this many pixels.
    /// - Throws: `StackerError.unreadable` naming `path`.
    public static func decode(bytes: [UInt8], path: String = "", maxPixels: Int = ImageFile.defaultMaxPixels) throws -> DecodedImage {
        guard !bytes.isEmpty else { throw StackerError.unreadable(path: path, reason: "the file is empty") }
        if SERCodec.hasMagic(bytes) { return try SERCodec.decode(bytes, path: path, maxPixels: maxPixels) }  // frame 0
        // Before TIFF: a DNG or NEF is a TIFF whose first directory is a preview.
        if let family = UnsupportedFormat.rawName(bytes) {
            return try RAWCodec.decode(bytes, family: family, path: path, maxPixels: maxPixels)
        }
        if let reason = UnsupportedFormat.reason(for: bytes, path: path) { throw StackerError.unreadable(path: path, reason: reason) }
        switch ImageFormat.fromMagic(bytes) {
        case .jpeg:
            let metadata = JPEGMetadata(bytes)
            let exif = EXIF.read(payload: metadata.exif)
            let decoded = try JPEGCodec.decode(bytes, path: path, maxPixels: maxPixels)
            let upright = Orientation.apply(exif.orientation, to: decoded)
            return DecodedImage(image: upright, bitDepth: 8, orientation: exif.orientation, exif: exif.tiff,
                                iccProfile: metadata.embedded.icc, xmp: metadata.embedded.xmp,
                                iptc: metadata.embedded.iptc)
        case .png:
            let decoded = try PNGCodec.decode(bytes, path: path, maxPixels: maxPixels)
            let metadata = PNGMetadata(bytes)
            let orientation = metadata.orientation
            return DecodedImage(image: Orientation.apply(orientation, to: decoded.image), bitDepth: decoded.bitDepth,
                                orientation: orientation, iccProfile: decoded.image.channels == 3 ? metadata.colourProfile : metadata.embedded.icc,
                                xmp: metadata.embedded.xmp)
        case .tiff:
            let decoded = try TIFFCodec.decode(bytes, path: path, maxPixels: maxPixels)
            let orientation = EXIF.orientation(tiffFile: bytes)
            let embedded = TIFFReader(bytes)?.embedded ?? EmbeddedMetadata()
            return DecodedImage(image: Orientation.apply(orientation, to: decoded.image), bitDepth: decoded.bitDepth,
                                orientation: orientation, iccProfile: embedded.icc, xmp: embedded.xmp,
                                iptc: embedded.iptc)
        case .fits:
            return try FITSCodec.decode(bytes, path: path, maxPixels: maxPixels)
        case .heif, nil:
            if HEIFCodec.hasMagic(bytes) {
                return try HEIFCodec.decode(bytes, frame: nil, path: path, maxPixels: maxPixels)
            }
            throw StackerError.unreadable(path: path, reason: "not \(ImageFormat.nameList)")
        }
    }

    /// Reads only the header of the image at `path`: its upright size (an
    /// orientation 5…8 — a JPEG's or PNG's EXIF, a TIFF's tag 274 — swaps
    /// width and height) and channel count
    /// as `read` would return them (1 gray, 3 colour). Reads at most the
    /// first megabyte unless the header lies beyond it.
    /// - Throws: `StackerError.unreadable` naming `path`.
    public static func readHeader(_ path: some FilePathConvertible) throws -> (width: Int, height: Int, channels: Int) {
        let file = path.filePath
        let path = file.description
        let prefixSize = 1 << 20
        let prefix = try FileBytes.read(file, limit: prefixSize)
        guard !prefix.isEmpty else { throw StackerError.unreadable(path: path, reason: "the file is empty") }
        if SERCodec.hasMagic(prefix) {
            let h = try SERCodec.header(of: file)
            return (h.width, h.height, h.channels)
        }
        if let family = UnsupportedFormat.rawName(prefix) {
            // LibRaw identifies a raw from anywhere in the file.
            return try RAWCodec.header(try FileBytes.read(file), family: family, path: path)
        }
        if let reason = UnsupportedFormat.reason(for: prefix, path: path) { throw StackerError.unreadable(path: path, reason: reason) }
        switch ImageFormat.fromMagic(prefix) {
        case .jpeg:
            var bytes = prefix
            var header: JPEGCodec.Header
            do {
                header = try JPEGCodec.header(bytes, path: path)
            } catch where prefix.count == prefixSize {
                bytes = try FileBytes.read(file)
                header = try JPEGCodec.header(bytes, path: path)
            }
            let orientation = EXIF.read(jpeg: bytes).orientation
            let swap = orientation >= 5
            return (swap ? header.height : header.width, swap ? header.width : header.height, header.channels)
        case .png:
            let h = try PNGCodec.header(prefix, path: path)
            // eXIf may follow the image data: its orientation needs the whole file.
            let swap = PNGMetadata(prefix.count == prefixSize ? try FileBytes.read(file) : prefix).orientation >= 5
            return (swap ? h.height : h.width, swap ? h.width : h.height, h.channels)
        case .tiff:
            // The first directory may sit anywhere, often after the pixels.
            let (h, swap) = try withWholeFile(file, prefix: prefix, prefixSize: prefixSize) {
                (try TIFFCodec.header($0, path: path), EXIF.orientation(tiffFile: $0) >= 5)
            }
            return (swap ? h.height : h.width, swap ? h.width : h.height, h.channels)
        case .fits:
            let h = try withWholeFile(file, prefix: prefix, prefixSize: prefixSize) { try FITSCodec.header($0, path: path) }
            return (h.width, h.height, h.channels)
        case .heif, nil:
            if HEIFCodec.hasMagic(prefix) {
                // The boxes libheif parses may sit after the coded data.
                let h = try withWholeFile(file, prefix: prefix, prefixSize: prefixSize) { try HEIFCodec.header($0, path: path) }
                return (h.width, h.height, h.channels)
            }
            throw StackerError.unreadable(path: path, reason: "not \(ImageFormat.nameList)")
        }
    }

    /// `parse(prefix)`, or, when that fails and the prefix may have cut the
    /// file short, `parse` of the whole file.
    private static func withWholeFile<T>(_ path: FilePath, prefix: [UInt8], prefixSize: Int,
                                         _ parse: ([UInt8]) throws -> T) throws -> T {
        do {
            return try parse(prefix)
        } catch where prefix.count == prefixSize {
            return try parse(try FileBytes.read(path))
        }
    }

    /// Encodes `image` (1 or 3 planes, samples 0…1; outside values are
    /// clamped, NaN becomes 0) into the bytes of a file of `format`.
    /// JPEG: 8-bit, `options.quality`, 4:4:4 chroma at quality ≥ 90 else
    /// 4:2:0, a gray image gives a grayscale JPEG. PNG: 16-bit when
    /// `options.bitDepth` is 16 or 32, else 8-bit. HEIC (x265): like JPEG
    /// for quality and chroma, 10-bit when `options.bitDepth` is 16 or 32
    /// (see `HEIFCodec.encode`). TIFF (deflate) and FITS:
    /// `options.bitDepth` 8, 16 or 32 (float, values not clamped); FITS also
    /// writes `options.keywords`. The EXIF, ICC profile, XMP and IPTC go
    /// where each format can hold them (see `EncodeOptions`).
    /// - Throws: `StackerError.invalidInput` for an image or option the format
    ///   cannot take, `StackerError.writeFailed` when the encoder fails (both
    ///   with an empty path).
    public static func encode(_ image: Image, format: ImageFormat, options: EncodeOptions = EncodeOptions()) throws -> [UInt8] {
        try encode(image, format: format, options: options, path: "")
    }

    /// Encodes and atomically writes `image` to `path`; the format comes from
    /// the extension (`.jpg`/`.jpeg`, `.png`, `.tif`/`.tiff`,
    /// `.heic`/`.heif`/`.hif`, `.fits`/`.fit`/`.fts`). An existing file is replaced
    /// only once the new one is complete on disk.
    /// - Throws: `StackerError.invalidInput` (unsupported extension, bad
    ///   options) or `StackerError.writeFailed`, naming `path`.
    public static func write(_ image: Image, to path: some FilePathConvertible,
                             options: EncodeOptions = EncodeOptions()) throws {
        let path = path.filePath
        guard let format = ImageFormat.fromExtension(of: path) else {
            throw StackerError.invalidInput(path: path.description, reason: "unsupported output format (use \(ImageFormat.extensionList))")
        }
        let bytes = try encode(image, format: format, options: options, path: path.description)
        try AtomicFile.write(bytes, to: path)
    }

    /// `encode` with the path to name in errors.
    static func encode(_ image: Image, format: ImageFormat, options: EncodeOptions, path: String) throws -> [UInt8] {
        guard image.channels == 1 || image.channels == 3 else {
            throw StackerError.invalidInput(path: path, reason: "cannot encode an image with \(image.channels) channels (need 1 or 3)")
        }
        guard image.width > 0 && image.height > 0 else {
            throw StackerError.invalidInput(path: path, reason: "cannot encode an empty image")
        }
        // The EXIF states the output's size and orientation, not the reference file's.
        let metadata = EmbeddedMetadata(
            exif: options.exif.map { EXIF.forOutput($0, width: image.width, height: image.height) },
            icc: options.iccProfile, xmp: options.xmp, iptc: options.iptc)
        switch format {
        case .jpeg:
            guard (1...100).contains(options.quality) else {
                throw StackerError.invalidInput(path: path, reason: "JPEG quality must be between 1 and 100, not \(options.quality)")
            }
            let jpeg = try JPEGCodec.encode(image, quality: options.quality, path: path, threads: options.threads)
            return JPEGMetadataSegments.insert(metadata, intoJPEG: jpeg)
        case .png:
            return try PNGCodec.encode(image, bitDepth: options.bitDepth == 16 || options.bitDepth == 32 ? 16 : 8,
                                       metadata: metadata, path: path)
        case .tiff:
            return try TIFFCodec.encode(image, bitDepth: options.bitDepth, metadata: metadata, path: path)
        case .heif:
            return try HEIFCodec.encode(image, quality: options.quality, bitDepth: options.bitDepth,
                                        metadata: metadata, path: path)
        case .fits:
            return try FITSCodec.encode(image, bitDepth: options.bitDepth, keywords: options.keywords, path: path)
        }
    }
}
