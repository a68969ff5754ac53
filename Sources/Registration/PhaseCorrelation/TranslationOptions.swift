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
    /// the fine phase correlation (candidate comparison, and the fallback
    /// where the direct refinement declines) (smaller images use about 80 % of their size).
    /// Default 1024: with 512, on a 2304×1728 street burst whose central
    /// crop held large moving objects, the crop's cross-correlation peak
    /// landed 7–12 px off on 9 of 10 frames.
    public var refineSize: Int
    /// Subpixel resolution of the refinement is `1 / upsampleFactor` px
    /// (plus a parabolic fit on that grid). Default 100.
    public var upsampleFactor: Int
    /// Estimates scoring below this are reported as not accepted. Default
    /// `defaultMinimumScore`.
    public var minimumScore: Double
    /// Spectral normalisation exponent of the refinement stage (see
    /// `CorrelationStage.correlate`); internal tuning knob. 0 = plain
    /// cross-correlation, 1 = phase correlation. Plain cross-correlation is
    /// the least noise-sensitive (0.0026 px RMS on the noisy 320×240 test
    /// texture, against 0.064 px at 1), but its broad peak follows large
    /// moving objects: on generated 12 MP and 4 MP street bursts it locked
    /// 7–12 px off on almost every frame. Since the direct refinement after
    /// it now supplies the accuracy, this stage only has to land within its
    /// basin, and phase correlation does that robustly (0.004–0.018 px RMS
    /// after refinement on every generated burst from 320×240 to 12 MP).
    var refineExponent: Float = 1

    /// Options with the documented defaults; values are clamped to sane
    /// ranges (`maxSearchSize`, `refineSize` ≥ 32; `upsampleFactor` in 1…1000).
    public init(maxSearchSize: Int = 512, refineSize: Int = 1024, upsampleFactor: Int = 100,
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
