public import Registration

/// What happened to one input frame: its registration and whether it was stacked.
public struct FrameReport: Sendable, Equatable {
    /// The path as given on the command line.
    public var path: String
    /// The transform mapping this frame's coordinates to the reference's.
    /// For a translation, pixel `(x, y)` of the frame shows what the
    /// reference shows at `(x + dx, y + dy)`.
    public var transform: Transform
    /// Registration confidence in 0…1 (phase correlation: normalised peak height).
    public var score: Double
    /// The second registration confidence (translation and homography), in
    /// 0…1: the share of the overlap whose blocks confirm the shift on their
    /// own, robust to moving objects (`TranslationEstimate.overlapAgreement`).
    /// Measured only for frames whose `score` is below `--min-score`; such a
    /// frame is still used when its score is at least half the threshold and
    /// this is at least 0.1. Nil when not measured.
    public var overlapAgreement: Double?
    /// Whether the frame went into the stack.
    public var used: Bool
    /// Why it was not used (nil when used).
    public var reason: String?
    /// The noise sigma estimated for the frame (0…1 scale), when weights are `auto`.
    public var noiseSigma: Double?
    /// A remark from registration (e.g. why a homography fell back to the
    /// translation), nil when there is none.
    public var alignmentNote: String?
    /// Sharpness (mean squared gradient of the downscaled luma), when the
    /// reference was chosen automatically.
    public var sharpness: Double?
    /// The weight the frame was stacked with.
    public var weight: Double
    /// The background level of the calibrated frame's luma (its median,
    /// 0…1 scale), measured for astro runs (calibration, normalisation or
    /// star alignment), else nil.
    public var background: Double?
    /// Stars detected in the frame (star alignment only).
    public var starsFound: Int?
    /// Stars matched to the reference's (star alignment only).
    public var starsMatched: Int?
    /// Median star FWHM in pixels (star alignment only).
    public var fwhm: Double?

    /// The translation part of `transform`: `dx`.
    public var dx: Double { transform.translation.dx }
    /// The translation part of `transform`: `dy`.
    public var dy: Double { transform.translation.dy }

    /// A frame record.
    public init(path: String, transform: Transform = .identity, score: Double = 0,
                used: Bool = false, reason: String? = nil, noiseSigma: Double? = nil, weight: Double = 1) {
        self.path = path
        self.transform = transform
        self.score = score
        self.used = used
        self.reason = reason
        self.noiseSigma = noiseSigma
        self.weight = weight
    }
}

/// Wall-clock seconds spent per stage. Per-frame stages (decode, register,
/// warp) are summed over frames, so with several threads they can exceed
/// `total`, which is the run's wall-clock time.
public struct StageTimings: Sendable, Equatable {
    /// Decoding input files.
    public var decode = 0.0
    /// Estimating transforms.
    public var register = 0.0
    /// Building master calibration frames and calibrating lights.
    public var calibrate = 0.0
    /// Resampling frames onto the reference grid.
    public var warp = 0.0
    /// Folding (average) or storing and reducing (robust kernels).
    public var stack = 0.0
    /// Encoding and writing the output (filled in by the caller).
    public var encode = 0.0
    /// The whole run, wall-clock.
    public var total = 0.0

    /// All zero.
    public init() {}
}

/// The outcome of a stacking run.
public struct StackResult: Sendable {
    /// The stacked image on the reference grid.
    public var image: Image
    /// One record per input frame, in input order.
    public var frames: [FrameReport]
    /// Index of the reference frame.
    public var referenceIndex: Int
    /// The reference frame's EXIF payload (orientation reset to 1), if any.
    public var referenceExif: [UInt8]?
    /// Bits per sample of the reference file (8, 16, or 32 = float; see `DecodedImage.bitDepth`).
    public var referenceBitDepth: Int
    /// The reference frame's FITS keywords (EXPTIME, DATE-OBS, …), for a FITS output.
    public var referenceKeywords: [FITSKeyword] = []
    /// Time per stage.
    public var timings: StageTimings
    /// One line per frame that was skipped, for stderr.
    public var warnings: [String]
}
