#if canImport(Glibc)
import Glibc
#endif

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

    /// Default share of the overlap that must confirm a shift (see
    /// `minimumAgreement`) for a frame scoring below `minimumScore` to be
    /// accepted anyway.
    ///
    /// Chosen between the distributions of `overlapAgreement` measured in
    /// `OverlapAgreementTests` and `StreetLikeRegistrationTests` (the shift
    /// the registrar returned; see `OverlapAgreement`): true matches under
    /// heavy occlusion (a third of reference and frame covered, shifts ±10 %,
    /// noise σ up to 0.05, gain 0.6, 8-bit) 0.27–0.47, half the frame covered
    /// 0.18–0.34; unrelated scenes ≤ 0.022 (other generated street scenes,
    /// textures, shared vignetting), pure noise and blank frames 0. 0.1 is
    /// 4.5× the highest unrelated value and 2.7× under the lowest heavy-occlusion match.
    public static let defaultMinimumAgreement: Double = 0.1

    /// Below this fraction of `minimumScore` no agreement rescues a frame
    /// (see `accepts`): 0.5, i.e. 0.03 by default, just above the peak height
    /// of unrelated textures and pure noise (0.019–0.026 at 320×240 and
    /// 640×480). A peak that low is indistinguishable from the random-phase
    /// floor, so there is no match to confirm; the heavily occluded true
    /// matches score 0.031–0.062. (Unrelated scenes with straight edges can
    /// peak higher, up to 0.061 on generated crowd scenes: the floor is not
    /// what rejects them, the agreement is.)
    public static let confirmationFloorRatio: Double = 0.5

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
    /// Estimates scoring at least this are accepted. Default
    /// `defaultMinimumScore`. Below it, see `minimumAgreement`.
    public var minimumScore: Double
    /// An estimate scoring below `minimumScore` but at least
    /// `confirmationFloor` is still accepted when its `overlapAgreement` is at
    /// least this. Default `defaultMinimumAgreement`; above 1, never.
    public var minimumAgreement: Double
    /// Spectral normalisation exponent of the refinement stage (see
    /// `CorrelationStage.correlate`); internal tuning knob. 0 = plain
    /// cross-correlation, 1 = phase correlation. Plain cross-correlation is
    /// the least noise-sensitive (0.0026 px RMS on the noisy 320×240 test
    /// texture, against 0.064 px at 1), but its broad peak follows large
    /// moving objects: on generated 12 MP and 4 MP street bursts it locked
    /// 7–12 px off on almost every frame. The direct refinement after it
    /// supplies the accuracy, so this stage only has to land within its
    /// basin, and phase correlation does that robustly (0.004–0.018 px RMS
    /// after refinement on every generated burst from 320×240 to 12 MP).
    var refineExponent: Float = 1

    /// Options with the documented defaults; values are clamped to sane
    /// ranges (`maxSearchSize`, `refineSize` ≥ 32; `upsampleFactor` in 1…1000).
    public init(maxSearchSize: Int = 512, refineSize: Int = 1024, upsampleFactor: Int = 100,
                minimumScore: Double = TranslationOptions.defaultMinimumScore,
                minimumAgreement: Double = TranslationOptions.defaultMinimumAgreement) {
        self.maxSearchSize = max(32, maxSearchSize)
        self.refineSize = max(32, refineSize)
        self.upsampleFactor = min(1000, max(1, upsampleFactor))
        self.minimumScore = minimumScore
        self.minimumAgreement = minimumAgreement
    }

    /// The lowest score an overlap agreement can rescue:
    /// `confirmationFloorRatio × minimumScore` (0.03 by default).
    public var confirmationFloor: Double { Self.confirmationFloorRatio * minimumScore }

    /// The acceptance rule: `score ≥ minimumScore`, or `score ≥
    /// confirmationFloor` and `overlapAgreement ≥ minimumAgreement` (a
    /// missing agreement confirms nothing).
    public func accepts(score: Double, overlapAgreement: Double?) -> Bool {
        if score >= minimumScore { return true }
        guard score >= confirmationFloor, let agreement = overlapAgreement else { return false }
        return agreement >= minimumAgreement
    }

    /// Why `accepts` refused an estimate, naming both measures, e.g.
    /// "registration score 0.041 is below the threshold 0.06 and the overlap
    /// agreement 0.004 is below 0.1".
    public func rejection(score: Double, overlapAgreement: Double?) -> String {
        func f(_ x: Double) -> String { cFormat("%.3g", x) }
        let head = "registration score \(f(score)) is below the threshold \(f(minimumScore))"
        guard let agreement = overlapAgreement else { return head }
        if score < confirmationFloor {
            return head + " and below \(f(confirmationFloor)), too low for the overlap agreement (\(f(agreement))) to confirm it"
        }
        return head + " and the overlap agreement \(f(agreement)) is below \(f(minimumAgreement))"
    }
}

extension TranslationOptions {
    /// Why a frame of the masked path (frame or reference with a fill, see
    /// `TranslationEstimate.masked`) was refused: it needs both the masked
    /// correlation ≥ `minimumScore` and the overlap agreement ≥
    /// `minimumAgreement`, e.g. "the frame or the reference has a constant
    /// fill; outside it the masked correlation is 0.31 (threshold 0.06) and
    /// the overlap agreement 0.004 (threshold 0.1): the match is not confirmed".
    public func maskedRejection(score: Double, overlapAgreement: Double) -> String {
        func f(_ x: Double) -> String { cFormat("%.3g", x) }
        return "the frame or the reference has a constant fill; outside it the masked correlation is \(f(score)) "
            + "(threshold \(f(minimumScore))) and the overlap agreement \(f(overlapAgreement)) (threshold "
            + "\(f(minimumAgreement))): the match is not confirmed"
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
    /// Whether the estimate passes `TranslationOptions.accepts`: the score
    /// reaches `minimumScore`, or it reaches the confirmation floor and the
    /// overlap agreement confirms the match.
    public var isAccepted: Bool
    /// The second, independent confidence (see `OverlapAgreement`): the share
    /// (0…1) of the overlap, in 16 px blocks of the downscaled search plane,
    /// whose local detrended correlation confirms the shift (high at the
    /// shift, clearly lower 2 px off in every direction). Robust to moving
    /// objects: roughly the unoccluded share of the overlap for a true match,
    /// ≤ 0.02 for unrelated scenes, 0 for noise and blank frames. Measured
    /// only when `score` is below `minimumScore`, since it resamples the
    /// reference and correlates every block at five shifts; else nil.
    public var overlapAgreement: Double?
    /// True when the frame or the reference holds a fill (`FillMask`) and
    /// was registered by the masked path: then `score` is the masked
    /// normalised cross-correlation at the shift, `overlapAgreement` is
    /// always measured (on the blocks that read no fill), and acceptance
    /// needs both to reach their thresholds.
    public var masked: Bool

    /// Creates an estimate.
    public init(dx: Double, dy: Double, score: Double, isAccepted: Bool, overlapAgreement: Double? = nil,
                masked: Bool = false) {
        self.dx = dx
        self.dy = dy
        self.score = score
        self.isAccepted = isAccepted
        self.overlapAgreement = overlapAgreement
        self.masked = masked
    }

    /// The translation as a frame → reference transform.
    public var transform: Transform { .translation(dx: dx, dy: dy) }
}
