/// Tunable constants of homography (8-parameter projective) registration.
///
/// Defaults were measured on the synthetic scenes of `HomographyTests`
/// (textured 640×480 and 4000×3000 planes, ±12 px perspective corner
/// jitter at 640 px, noise σ = 0.01, 8-bit steps, opaque moving rectangles,
/// gain/offset changes); see the doc comment of each property.
public struct HomographyOptions: Sendable, Equatable {
    /// Robust loss applied to the photometric residuals by iteratively
    /// reweighted least squares. The tuning constant multiplies the robust
    /// residual scale σ̂ = 1.4826 · median(|r|), re-estimated every iteration.
    public enum RobustLoss: Sendable, Equatable {
        /// Plain least squares (every sample weight 1).
        case none
        /// Huber: weight 1 for |r| ≤ k·σ̂, else k·σ̂ / |r|. k = 1.345 gives 95 %
        /// efficiency on Gaussian noise.
        case huber(Double)
        /// Tukey biweight: weight (1 − (r / cσ̂)²)² for |r| < c·σ̂, else 0
        /// (outliers such as moving objects are ignored entirely).
        /// c = 4.685 gives 95 % efficiency on Gaussian noise.
        case tukey(Double)
    }

    /// The pyramid stops growing once its coarsest level has a longest side
    /// of at most this many pixels (levels halve each side, box filter).
    /// The refinement starts there from the phase-correlation translation.
    /// Default 128: the residual perspective left after the translation
    /// (±12 px at the corners of a 640 px frame) is ±1.5 px there, well
    /// inside the Gauss–Newton basin.
    public var coarsestSize: Int
    /// The finest level refined is the first whose longest side is at most
    /// this many pixels (level 0 is full resolution). Default 4096: frames up
    /// to 4096 px are refined at full resolution (on the 12 MP street bench
    /// burst: corner RMS 0.040 px vs 0.12 px when refined at 2000×1500), for
    /// a larger `init` and estimate (docs/performance.md).
    public var finestSize: Int
    /// Refinement runs on the coarsest level, the finest level, and every
    /// `levelStride`-th level above the finest (levels halve each side):
    /// with 2, a 4000 × 3000 frame is refined at 125, 250, 1000 and 4000 px
    /// instead of all six levels. Each refined level starts well inside its
    /// basin (the level above converged to ≈ 0.05 px of its own pixels).
    /// Default 2 (1 refines every level).
    public var levelStride: Int
    /// At most this many reference samples per level: larger levels keep
    /// the pixels with the strongest gradient in each cell of a 16 × 12
    /// grid (evenly spread, so the perspective terms stay well determined).
    /// Default 16 384: on the 12 MP bench burst the corner error is that of
    /// 65 536 (0.039 px RMS), at 2 MP 0.022 against 0.014 px; 8 192 kept
    /// 12 MP at 0.039 px but took 2 MP to 0.031 px (docs/performance.md,
    /// issue 26).
    public var maxSamplesPerLevel: Int
    /// Gauss–Newton iterations allowed on the finest level when the level
    /// above it converged; `maxIterationsPerLevel` when it did not. Default
    /// 3: the level starts within the coarser level's ≈ 0.2 px, and on the
    /// 12 MP bench burst 3 keep the corner error of 30 (0.039 px RMS) where
    /// 2 gave 0.043 px.
    public var finestIterations: Int
    /// Gauss–Newton iterations allowed on the finest level when the level
    /// above it stopped unconverged (coarser levels allow at most 10, with a
    /// 10× looser threshold: they only need to land in the next level's
    /// basin). Default 30.
    public var maxIterationsPerLevel: Int
    /// A level stops when an update moves no image corner by more than this
    /// many full-resolution pixels times the level's downsampling factor.
    /// Default 0.005 px: on the 12 MP bench burst the corner error is the
    /// same as with 0.002 px (0.039 against 0.040 px RMS) for 0.6 × the
    /// estimate's time (docs/performance.md, issue 26).
    public var convergenceThreshold: Double
    /// Robust loss for the photometric residuals. Default `.tukey(4.685)`.
    public var robustLoss: RobustLoss
    /// Refined corners may move at most this fraction of the image diagonal
    /// away from the translation estimate; beyond it the refinement is
    /// treated as diverged and the translation is returned. Default 0.1.
    public var maxCornerCorrection: Double
    /// Estimates scoring below this are reported as not accepted. Default
    /// `TranslationOptions.defaultMinimumScore` (0.06): the score has the
    /// phase-correlation semantics, so the same threshold applies.
    public var minimumScore: Double
    /// Below `minimumScore` (but at least half of it), the overlap agreement
    /// at or above which the estimate is still accepted; see
    /// `TranslationOptions.minimumAgreement`. Default
    /// `TranslationOptions.defaultMinimumAgreement` (0.1).
    public var minimumAgreement: Double

    /// Options with the documented defaults; values are clamped to sane
    /// ranges (`coarsestSize` ≥ 16, `finestSize` ≥ `coarsestSize`,
    /// `levelStride` ≥ 1, `maxSamplesPerLevel` ≥ 1000,
    /// `finestIterations` and `maxIterationsPerLevel` ≥ 1,
    /// `convergenceThreshold` > 0).
    public init(coarsestSize: Int = 128, finestSize: Int = 4096, levelStride: Int = 2,
                maxSamplesPerLevel: Int = 16_384, finestIterations: Int = 3,
                maxIterationsPerLevel: Int = 30, convergenceThreshold: Double = 0.005,
                robustLoss: RobustLoss = .tukey(4.685), maxCornerCorrection: Double = 0.1,
                minimumScore: Double = TranslationOptions.defaultMinimumScore,
                minimumAgreement: Double = TranslationOptions.defaultMinimumAgreement) {
        self.coarsestSize = max(16, coarsestSize)
        self.finestSize = max(self.coarsestSize, finestSize)
        self.levelStride = max(1, levelStride)
        self.maxSamplesPerLevel = max(1000, maxSamplesPerLevel)
        self.finestIterations = max(1, finestIterations)
        self.maxIterationsPerLevel = max(1, maxIterationsPerLevel)
        self.convergenceThreshold = convergenceThreshold > 0 ? convergenceThreshold : 0.005
        self.robustLoss = robustLoss
        self.maxCornerCorrection = max(0, maxCornerCorrection)
        self.minimumScore = minimumScore
        self.minimumAgreement = minimumAgreement
    }
}
