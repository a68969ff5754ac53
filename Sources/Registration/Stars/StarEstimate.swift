/// A measured transform of a star-field frame relative to the reference,
/// from matched stars (`StarRegistrar`).
public struct StarEstimate: Sendable, Equatable {
    /// Maps frame pixel coordinates to reference pixel coordinates (pixel
    /// centres at integers, origin top-left, y down). The identity when no
    /// consistent match was found.
    public var transform: Transform
    /// Registration confidence in [0, 1]: `starsMatched / min(starsFound,
    /// reference stars)` — the fraction of the stars both lists could share
    /// that do land on each other. Aligned frames of the same field score
    /// 0.8–1 (less under clouds or with very different seeing); unrelated
    /// fields and noise score ≈ 0.
    public var score: Double
    /// True when `score >= options.minimumScore` and
    /// `starsMatched >= options.minimumMatches`.
    public var isAccepted: Bool
    /// Stars detected in the frame (at most `detection.maximumStars`).
    public var starsFound: Int
    /// Frame stars that land within `matchRadius` of a distinct reference
    /// star under `transform` (0 when no match was found).
    public var starsMatched: Int
    /// Median FWHM of the frame's stars in pixels (a seeing/focus measure);
    /// nil when no star was found.
    public var fwhm: Double?
    /// Median roundness of the frame's stars (`Star.roundness`: minor over
    /// major axis, 1 = round; lower for trailed or astigmatic stars); nil
    /// when no star was found. The detector rejects stars more elongated
    /// than `StarDetectionOptions.maximumElongation`, so it never reads
    /// below 1 / that (0.625 by default): badly trailed frames show as
    /// few stars instead.
    public var roundness: Double?
    /// RMS distance in pixels between the matched frame stars mapped by
    /// `transform` and their reference stars, over the pairs used in the
    /// final fit; nil when no fit was made. It includes the centroid noise
    /// of both lists, so it is larger than the error of the transform itself.
    public var residualRMS: Double?
    /// Nil when accepted; otherwise a sentence saying why not (too few
    /// stars, no consistent pattern, too few matches, implausible scale).
    public var reason: String?

    /// Creates an estimate.
    public init(transform: Transform, score: Double, isAccepted: Bool, starsFound: Int, starsMatched: Int,
                fwhm: Double?, residualRMS: Double?, reason: String?, roundness: Double? = nil) {
        self.transform = transform
        self.score = score
        self.isAccepted = isAccepted
        self.starsFound = starsFound
        self.starsMatched = starsMatched
        self.fwhm = fwhm
        self.roundness = roundness
        self.residualRMS = residualRMS
        self.reason = reason
    }
}
