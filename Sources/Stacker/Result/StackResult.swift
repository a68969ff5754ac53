/// What the reference frame carries to the output: its EXIF, its bit depth,
/// its FITS keywords, its ICC profile, XMP and IPTC.
public struct CarriedMetadata: Sendable, Equatable {
    /// The EXIF payload (TIFF block, orientation reset to 1), or nil.
    public var exif: [UInt8]?
    /// Bits per sample of the reference (8, 16, or 32 = float; see
    /// `DecodedImage.bitDepth`). Images given in memory count as 32.
    public var bitDepth: Int
    /// FITS keywords (EXPTIME, DATE-OBS, …) for a FITS output.
    public var keywords: [FITSKeyword]
    /// The reference's ICC profile, byte for byte, or nil.
    public var iccProfile: [UInt8]?
    /// The reference's XMP packet, or nil.
    public var xmp: [UInt8]?
    /// The reference's IPTC-IIM block, or nil.
    public var iptc: [UInt8]?
    /// Whether the reference's values are proportional to light (a camera
    /// raw) rather than encoded for display; see `TransferCurve.automatic`.
    public var linearLight = false
    /// The white balance multipliers (R, G, B; G = 1) every camera raw was
    /// balanced with under `--wb camera`: the reference frame's as-shot
    /// balance; nil when none was applied.
    public var whiteBalance: [Float]?
    /// How the reference's CFA mosaic was debayered (method, pattern and
    /// its source, `--wb`); nil when it was not a debayered mosaic.
    public var debayer: DebayerRecord?

    public init(exif: [UInt8]? = nil, bitDepth: Int, keywords: [FITSKeyword] = [], iccProfile: [UInt8]? = nil,
                xmp: [UInt8]? = nil, iptc: [UInt8]? = nil) {
        self.exif = exif
        self.bitDepth = bitDepth
        self.keywords = keywords
        self.iccProfile = iccProfile
        self.xmp = xmp
        self.iptc = iptc
    }
}

/// The outcome of a stacking run: the image, a record per frame, and what
/// it needs to write itself and its report.
public struct StackResult: Sendable {
    /// The stacked image on the reference grid, 0…1.
    public var image: Image
    /// One record per input frame, in input order.
    public var frames: [FrameReport]
    /// Index of the reference frame.
    public var referenceIndex: Int
    /// What the reference carries to the output.
    public var metadata: CarriedMetadata
    /// The options the run used (the reference index as chosen).
    public var options: StackOptions
    /// Time per stage; `encode` is filled in by whoever times the write.
    public var timings: StageTimings
    /// One line per frame that was skipped, and other warnings, for stderr.
    public var warnings: [String]
    /// Per pixel, the fractions rejected low and high, when the options
    /// asked for it (`StackOptions.makesRejectionMap`); else nil.
    public var rejectionMap: RejectionMap?
    /// For a drizzle (`StackOptions.drizzle`), per output pixel the summed
    /// drop weight Σ overlap · frame weight (the least over the channels),
    /// as a one-channel image: 0 where no drop landed and the 1× stack
    /// filled in; else nil.
    public var weightMap: Image?
    /// The frames `StackOptions.keep` dropped, with the measure and the
    /// cut-off; nil when it dropped none or was not set.
    public var selection: FrameSelection.Outcome?
    /// The average's unnormalised sums over the run's frames, when the run
    /// made them (`stackPartialSums`) instead of an image; else nil.
    public var partialSums: PartialSums?

    /// A result; the pipeline makes these.
    public init(image: Image, frames: [FrameReport], referenceIndex: Int, metadata: CarriedMetadata,
                options: StackOptions, timings: StageTimings = StageTimings(), warnings: [String] = []) {
        self.image = image
        self.frames = frames
        self.referenceIndex = referenceIndex
        self.metadata = metadata
        self.options = options
        self.timings = timings
        self.warnings = warnings
    }

    /// The full-scale value of the reference's sample type, by which the
    /// 0…1 values are multiplied to give its native units: 255, 65535, or
    /// 1 for float (and 32-bit integer) data.
    public var nativeFullScale: Double {
        switch metadata.bitDepth {
        case 8: return 255
        case 16: return 65535
        default: return 1
        }
    }

    /// The reference's EXIF payload (orientation reset to 1), if any.
    public var referenceExif: [UInt8]? { metadata.exif }
    /// Bits per sample of the reference.
    public var referenceBitDepth: Int { metadata.bitDepth }
    /// The reference's FITS keywords.
    public var referenceKeywords: [FITSKeyword] { metadata.keywords }

    /// How the image is encoded at `path`: the format its extension names
    /// (JPEG when none does), at the depth nearest to `depth` that the
    /// format has (default: `ImageFormat.stackDepth`, so at least 16 bits
    /// in PNG, TIFF and FITS), with the reference's EXIF, ICC profile, XMP
    /// and IPTC in every format but FITS (each format keeps what it can
    /// hold: see `EncodeOptions`) and its keywords in a FITS file.
    public func encodeOptions(for path: some FilePathConvertible, quality: Int = 95, depth: Int? = nil,
                              threads: Int? = nil) -> EncodeOptions {
        let format = ImageFormat.fromExtension(of: path) ?? .jpeg
        var encode = EncodeOptions(quality: quality)
        encode.bitDepth = format.bitDepth(nearestTo: depth ?? format.stackDepth(reference: metadata.bitDepth))
        encode.exif = format == .fits ? nil : metadata.exif
        encode.keywords = format == .fits ? metadata.keywords : []
        encode.threads = threads ?? options.threads
        encode.iccProfile = metadata.iccProfile
        encode.xmp = metadata.xmp
        encode.iptc = metadata.iptc
        return encode
    }

    /// Writes the image to `path` atomically, encoded as `encodeOptions`
    /// says (`quality`: JPEG 1…100; `depth`: 8, 16 or 32 = float), after
    /// `options.outputScale` and the transfer curve.
    /// - Throws: `StackerError` naming `path`.
    public func write(to path: some FilePathConvertible, quality: Int = 95, depth: Int? = nil,
                      threads: Int? = nil) throws {
        let curve = transferCurve(for: path)
        try ImageFile.write(curve.encode(options.outputScale.apply(to: image)), to: path,
                            options: encodeOptions(for: path, quality: quality, depth: depth, threads: threads))
    }

    /// The transfer curve `write` encodes the image with at `path`:
    /// `options.transfer`, or `TransferCurve.automatic` (sRGB for a camera
    /// raw stack written as JPEG, PNG or HEIC, else linear).
    public func transferCurve(for path: some FilePathConvertible) -> TransferCurve {
        options.transfer ?? .automatic(linearLight: metadata.linearLight,
                                       format: ImageFormat.fromExtension(of: path) ?? .jpeg)
    }

    /// The run's JSON report, naming `output` as the image written.
    public func report(output: some FilePathConvertible) -> StackReport {
        StackReport(result: self, outputPath: output.filePath.description)
    }
}

extension ImageFormat {
    /// The bits per sample a stack is written at when no depth is asked
    /// for, given the reference frame's: JPEG and HEIC 8 (10-bit HEIC is
    /// `--depth 16`, which not every viewer decodes); PNG, TIFF and FITS at
    /// least 16, since the mean or median of many frames holds finer steps
    /// than any one of them (8-bit frames written at 8 bits would round the
    /// noise reduction away), and 32 (float) for a float reference in TIFF
    /// and FITS.
    public func stackDepth(reference bitDepth: Int) -> Int {
        switch self {
        case .jpeg, .heif: return 8
        case .png, .tiff, .fits: return self.bitDepth(nearestTo: max(bitDepth, 16))
        }
    }
}
