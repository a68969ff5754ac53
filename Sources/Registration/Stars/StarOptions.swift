/// Tunable constants of star-field registration (`StarRegistrar`).
///
/// Defaults were chosen on the synthetic star fields of
/// `StarAlignmentTests` (≈ 1000 × 800 px, 150–400 stars, shifts ≤ 40 px,
/// rotations ≤ 2°, scale ± 0.3 %); see each property.
public struct StarOptions: Sendable, Equatable {
    /// The transform model fitted to the matched stars.
    public enum Model: Sendable, Equatable {
        /// Rotation, uniform scale and translation (4 parameters; closed-form
        /// weighted least squares, Umeyama). Right for field rotation,
        /// refocusing and drift.
        case similarity
        /// General affine (6 parameters; weighted least squares): also
        /// absorbs shear and anisotropic scale (differential refraction,
        /// small tilt).
        case affine
    }

    /// Star detection constants (both the reference and the frames).
    public var detection: StarDetectionOptions
    /// The transform model. Default `.similarity`.
    public var model: Model
    /// Triangles are built from this many of the brightest stars of each
    /// list (all C(n, 3) of them). Default 30: 4060 triangles, enough
    /// shared stars even when a third of the bright ones differ between
    /// frames, and the voting stays a few milliseconds.
    public var triangleStars: Int
    /// Two triangles match when their invariants (middle/longest and
    /// shortest/longest side ratio) differ by less than this. Default 0.005:
    /// star positions good to 0.1 px change the ratios of 100 px sides by
    /// ≈ 0.002, and a 0.3 % anisotropy (affine frames) by about as much.
    public var triangleTolerance: Double
    /// Largest scale change accepted between frame and reference, as a
    /// fraction (0.1 = ± 10 %). Triangles whose sizes differ more are not
    /// matched, and transforms beyond it are rejected. Default 0.1: frames
    /// of one optical train differ by well under 1 %.
    public var maximumScaleChange: Double
    /// A candidate correspondence agrees with a trial transform (from two
    /// candidate pairs) when it lands within this many pixels. Default 3 px:
    /// loose enough for the residual shear and distortion a similarity
    /// leaves at the field edge, tight enough that chance agreements are rare.
    public var consensusTolerance: Double
    /// Under the fitted transform, a frame star matches the nearest
    /// reference star within this many pixels (one-to-one). Default 2 px.
    /// `starsMatched` and the score count matches at this radius.
    public var matchRadius: Double
    /// Weight each matched pair by the inverse of its expected centroid
    /// variance (from FWHM and SNR, with a 0.02 px floor) rather than
    /// equally. Default true.
    public var weightBySNR: Bool
    /// Estimates whose score (matched / min(frame stars, reference stars))
    /// is below this are not accepted. Default 0.25: aligned test frames
    /// score 0.8–1 and unrelated star fields below 0.05.
    public var minimumScore: Double
    /// Fewest matched stars for an accepted estimate, and fewest stars the
    /// reference must have. Default 8.
    public var minimumMatches: Int

    /// Options with the documented defaults; values are clamped to sane
    /// ranges (`triangleStars` in 4…60, tolerances and radii > 0,
    /// `minimumMatches` ≥ 3).
    public init(detection: StarDetectionOptions = .init(), model: Model = .similarity,
                triangleStars: Int = 30, triangleTolerance: Double = 0.005,
                maximumScaleChange: Double = 0.1, consensusTolerance: Double = 3,
                matchRadius: Double = 2, weightBySNR: Bool = true,
                minimumScore: Double = 0.25, minimumMatches: Int = 8) {
        self.detection = detection
        self.model = model
        self.triangleStars = min(60, max(4, triangleStars))
        self.triangleTolerance = triangleTolerance > 0 ? triangleTolerance : 0.005
        self.maximumScaleChange = maximumScaleChange > 0 ? maximumScaleChange : 0.1
        self.consensusTolerance = consensusTolerance > 0 ? consensusTolerance : 3
        self.matchRadius = matchRadius > 0 ? matchRadius : 2
        self.weightBySNR = weightBySNR
        self.minimumScore = minimumScore
        self.minimumMatches = max(3, minimumMatches)
    }
}
