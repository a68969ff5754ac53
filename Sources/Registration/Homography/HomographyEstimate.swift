/// A measured projective transform of a frame relative to the reference.
public struct HomographyEstimate: Sendable, Equatable {
    /// Maps frame pixel coordinates to reference pixel coordinates
    /// (full resolution, pixel centres at integers, origin top-left).
    public var transform: Transform
    /// Registration confidence in [0, 1] with the phase-correlation
    /// semantics of `TranslationEstimate.score`: the normalised cross-power
    /// peak height on the ≤ 512 px pyramid level, measured after warping the
    /// frame by `transform` (or, when the translation is returned, by the
    /// translation). ≈1 for identical images, ≈0 for unrelated ones, 0 for
    /// blank frames, so `TranslationOptions.defaultMinimumScore` applies.
    public var score: Double
    /// True when `TranslationOptions.accepts` passes: `score ≥ minimumScore`,
    /// or the score reaches half of it and `overlapAgreement` confirms.
    public var isAccepted: Bool
    /// The overlap agreement (see `TranslationEstimate.overlapAgreement`) of
    /// the returned transform: the translation's when it falls back, else
    /// that of the frame's score level warped by `transform`. Nil when the
    /// score alone accepts (it is not measured then).
    public var overlapAgreement: Double?
    /// Gauss–Newton iterations run, summed over the pyramid levels.
    public var iterations: Int
    /// Robustly weighted RMS photometric residual on the finest level, in
    /// sample units (after the gain/offset normalisation); nil when the
    /// refinement did not run or was discarded.
    public var residualRMS: Double?
    /// Nil when `transform` is the refined homography; otherwise a sentence
    /// saying why the phase-correlation translation was returned instead
    /// (divergence, a singular system, a lower score, a blank frame).
    public var fallbackReason: String?

    /// Creates an estimate.
    public init(transform: Transform, score: Double, isAccepted: Bool, iterations: Int,
                residualRMS: Double?, fallbackReason: String?, overlapAgreement: Double? = nil) {
        self.transform = transform
        self.score = score
        self.isAccepted = isAccepted
        self.iterations = iterations
        self.residualRMS = residualRMS
        self.fallbackReason = fallbackReason
        self.overlapAgreement = overlapAgreement
    }
}
