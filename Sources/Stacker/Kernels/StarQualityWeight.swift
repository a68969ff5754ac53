/// Frame weights from star measures (`--weights fwhm`, `--weights stars`),
/// relative to the reference, which gets weight 1.
///
/// - `fwhm`: (FWHM_ref / FWHM)², the FWHM weighting of PixInsight's
///   SubframeSelector and Siril: a star's peak, and so the contrast of fine
///   detail, falls as 1 / FWHM², so sharper frames count more.
/// - `stars`: N / N_ref, the number of stars detected: frames under thin
///   cloud, haze or a bright sky lose their faint stars and count less.
///
/// A frame or reference without the measure (no stars found, or a width
/// that is 0 or not finite) gets weight 1: the weight is then the same as
/// `equal`. The result is always positive and finite.
public enum StarQualityWeight {
    /// Smallest weight given, so a frame with a huge FWHM or a single star
    /// still counts a little and the average's weight sum stays positive.
    public static let minimum = 1e-3
    /// Largest weight given, so a frame with an absurdly small FWHM (a
    /// hot-pixel field) cannot swamp the stack.
    public static let maximum = 1e3

    /// The weight of a frame whose median star FWHM is `fwhm` pixels,
    /// against the reference's `referenceFWHM`.
    public static func fwhm(_ fwhm: Double?, reference referenceFWHM: Double?) -> Double {
        guard let f = fwhm, let r = referenceFWHM, f > 0, r > 0, f.isFinite, r.isFinite else { return 1 }
        return clamped((r / f) * (r / f))
    }

    /// The weight of a frame in which `stars` stars were detected, against
    /// the reference's `referenceStars`.
    public static func stars(_ stars: Int?, reference referenceStars: Int?) -> Double {
        guard let n = stars, let r = referenceStars, r > 0 else { return 1 }
        return clamped(Double(n) / Double(r))
    }

    private static func clamped(_ w: Double) -> Double { min(maximum, max(minimum, w)) }
}

// References
// - PixInsight SubframeSelector: FWHM-based approval and weighting
//   expressions (weights ∝ 1 / FWHM²).
// - Siril 1.2 documentation, "Stacking": weighting by FWHM ("wfwhm") and by
//   number of stars ("nbstars").
