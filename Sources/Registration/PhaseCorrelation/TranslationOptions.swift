/// Tunable constants of translation registration by phase correlation.
public struct TranslationOptions: Sendable, Equatable {
    /// Default score below which a frame is rejected as "no match".
    ///
    /// Chosen from the score distributions measured in
    /// `PhaseCorrelationTests` ("score separates matches from non-matches"):
    /// noisy, shifted, 8-bit-quantised, partly occluded copies of a scene
    /// score far above it; unrelated scenes and pure noise score well below
    /// it; blank frames score exactly 0. Measured on 320×240 planes (coarse
    /// FFT 320×240): matches 0.12–0.23 (the 0.12–0.16 ones with noise
    /// σ = 0.05 and 8 occluding objects), unrelated scenes and pure noise
    /// 0.022–0.026, blank 0. The unrelated floor is the maximum of a
    /// random-phase surface, ≈ 4–5 / √(FFT pixels): lower for larger planes
    /// (≈ 0.01 at a 512×384 search size), higher for tiny ones (≈ 0.1 at
    /// 48×48), so very small planes may want a higher threshold.
    public static let defaultMinimumScore: Double = 0.06

    /// Longest side, in pixels, of the downscaled plane the coarse search
    /// runs on. The plane is box-averaged by the smallest integer factor that
    /// brings both sides to at most this. Default 512.
    public var maxSearchSize: Int
    /// Longest side, in pixels, of the full-resolution central crop used for
    /// the subpixel refinement (smaller images use about 80 % of their size).
    /// Default 512.
    public var refineSize: Int
    /// Subpixel resolution of the refinement is `1 / upsampleFactor` px
    /// (plus a parabolic fit on that grid). Default 100.
    public var upsampleFactor: Int
    /// Estimates scoring below this are reported as not accepted. Default
    /// `defaultMinimumScore`.
    public var minimumScore: Double
    /// Spectral normalisation exponent of the refinement stage (see
    /// `CorrelationStage.correlate`); internal tuning knob. 0 = plain
    /// cross-correlation, as in Guizar-Sicairos et al.: on the 320×240 test
    /// texture with noise σ = 0.02 it gave 0.0026 px RMS against 0.064 px for
    /// full phase normalisation (1), which lets noise-dominated bins vote
    /// equally. The coarse search keeps full phase correlation (sharp peak,
    /// normalised score).
    var refineExponent: Float = 0

    /// Options with the documented defaults; values are clamped to sane
    /// ranges (`maxSearchSize`, `refineSize` ≥ 32; `upsampleFactor` in 1…1000).
    public init(maxSearchSize: Int = 512, refineSize: Int = 512, upsampleFactor: Int = 100,
                minimumScore: Double = TranslationOptions.defaultMinimumScore) {
        self.maxSearchSize = max(32, maxSearchSize)
        self.refineSize = max(32, refineSize)
        self.upsampleFactor = min(1000, max(1, upsampleFactor))
        self.minimumScore = minimumScore
    }
}

/// A measured translation of a frame relative to the reference.
///
/// `(dx, dy)` in full-resolution pixels: the frame pixel at `(x, y)` shows
/// what the reference shows at `(x + dx, y + dy)`; `transform` maps frame
/// coordinates to reference coordinates.
public struct TranslationEstimate: Sendable, Equatable {
    /// Horizontal shift in pixels (x right).
    public var dx: Double
    /// Vertical shift in pixels (y down).
    public var dy: Double
    /// Registration confidence in [0, 1]: the peak height of the normalised
    /// cross-power (phase) correlation surface on the downscaled search
    /// plane, evaluated at the subpixel peak. ≈1 for identical images,
    /// ≈0 for unrelated ones, exactly 0 for blank (constant) frames.
    public var score: Double
    /// True when `score >= options.minimumScore`.
    public var isAccepted: Bool

    /// Creates an estimate.
    public init(dx: Double, dy: Double, score: Double, isAccepted: Bool) {
        self.dx = dx
        self.dy = dy
        self.score = score
        self.isAccepted = isAccepted
    }

    /// The translation as a frame → reference transform.
    public var transform: Transform { .translation(dx: dx, dy: dy) }
}
