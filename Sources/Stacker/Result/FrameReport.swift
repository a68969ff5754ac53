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
    /// What local alignment (`--align local`) found after the global
    /// transform: median and 95th percentile of the tiles' residual
    /// displacements and the share of tiles that fell back; nil otherwise.
    public var localField: DisplacementSummary?
    /// `--match-exposure`: the frame's exposure against the reference, the
    /// line `frame ≈ exposureGain · reference + exposureOffset` on their
    /// luma (`ExposureFit`), undone before the merge; nil when not measured
    /// (the reference, the option off, or no line could be fitted).
    public var exposureGain: Double?
    /// The offset of that line, in sample units (0…1).
    public var exposureOffset: Double?
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
    /// Median star roundness, minor over major axis (1 = round; star
    /// alignment only; see `StarEstimate.roundness`).
    public var roundness: Double?
    /// True when the frame was converted into the reference's colour
    /// profile (its own differed); nil otherwise.
    public var colourConverted: Bool?
    /// For integer FITS data, the frame's smallest and largest stored
    /// value as read (ADU, before calibration); nil for other files.
    public var storedRange: ClosedRange<Double>?

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
