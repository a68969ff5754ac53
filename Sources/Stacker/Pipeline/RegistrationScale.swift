import Registration

/// The value scale of a frame's samples, as registration and the output
/// see it.
///
/// Stacker's samples are file values over the full scale of the stored type
/// (`FITSCodec`: / 4 294 967 295 for 32-bit integers), so a CCD frame saved as
/// 32-bit integers with 16-bit ADU spans ~1e-7, and a float frame in ADU ×
/// 1e-12 spans ~1e-9. Registration's thresholds (the blank-patch floor of
/// the phase correlation, the flat-block floor of the overlap agreement, the
/// noise floor of the direct refinement) are absolute, so such a frame scored
/// 0 and was refused, while the same data as 16-bit integers scored 0.96.
///
/// Contract:
/// - `map(for:)` returns an affine map only when the plane's samples span
///   less than `tinySpan` (and more than 0); otherwise nil, and the plane is
///   registered as it is. Frames with at least 1/1000 of the scale in use,
///   every 8-bit frame that is not constant among them, are never touched, so their
///   registration (and output bytes) are what they were.
/// - The map sends the median to 0.5 and one robust σ (1.4826 · MAD) to
///   `normalisedSigma`; when the MAD is 0 (most samples equal), the span
///   `[min, max]` to `[0, 1]`. It is affine, so the translation's shift and
///   the homography's transform do not depend on it, and the score of a
///   frame is that of the same frame at a workable scale.
/// - `isTiny(_:)` is the same test on a whole image, for the output warning.
enum RegistrationScale {
    /// Span (max − min of the finite samples, in file-scale units) below which
    /// a plane is rescaled for registration, and below which a frame's peak
    /// magnitude gets the output warning: 1/1000 of the scale. Registration's
    /// absolute floors (1e-5 windowed σ in `CorrelationStage`, 1e-12 block
    /// variance in `OverlapAgreement`, 1e-6 in `DirectRefinement`) are all
    /// far below the texture of a plane spanning 1e-3.
    static let tinySpan: Float = 1e-3
    /// The robust σ the rescaled plane gets: a photo-like contrast (the
    /// median at 0.5, ±3σ within 0.35…0.65).
    static let normalisedSigma: Double = 0.05

    /// The `(gain, offset)` with `x′ = gain · x + offset` that brings `plane`
    /// to a workable scale, or nil when its samples already span at least
    /// `tinySpan`, are constant, or are not finite.
    static func map(for plane: Plane) -> (gain: Float, offset: Float)? {
        guard let (lo, hi) = tinyRange(plane), hi > lo else { return nil }
        let stats = RobustStatistics.of(plane)
        if stats.sigma > 0, stats.sigma.isFinite {
            let gain = normalisedSigma / stats.sigma
            return (Float(gain), Float(0.5 - gain * stats.median))
        }
        let gain = 1 / (Double(hi) - Double(lo))
        return (Float(gain), Float(-gain * Double(lo)))
    }

    /// `plane` with `map(for:)` applied when it gives one; `transform` maps
    /// further planes (the caller's downsampled copy) the same way.
    static func normalised(_ plane: Plane) -> (plane: Plane, transform: (Plane) -> Plane) {
        guard let (gain, offset) = map(for: plane) else { return (plane, { $0 }) }
        let apply: (Plane) -> Plane = { p in
            Plane(width: p.width, height: p.height, pixels: p.pixels.map { gain * $0 + offset })
        }
        return (apply(plane), apply)
    }

    /// `(min, max)` of the finite samples when they span less than
    /// `tinySpan`; nil as soon as two samples `tinySpan` apart are seen (an
    /// ordinary frame is decided within its first row) or when none is finite.
    static func tinyRange(_ plane: Plane) -> (Float, Float)? {
        var lo = Float.infinity, hi = -Float.infinity
        let found: Bool = plane.pixels.withUnsafeBufferPointer { p in
            for v in p where v.isFinite {
                if v < lo { lo = v }
                if v > hi { hi = v }
                if hi - lo >= tinySpan { return false }
            }
            return true
        }
        return found && lo <= hi ? (lo, hi) : nil
    }

    /// The largest |sample| of `image` when every finite sample is below
    /// `tinySpan` in magnitude but some is not 0 (a frame whose data use less
    /// than 1/1000 of the scale: written to 8 or 16 bits it comes out black);
    /// nil otherwise. Stops at the first sample of magnitude ≥ `tinySpan`.
    static func tinyPeak(_ image: Image) -> Float? {
        var peak: Float = 0
        for plane in image.planes {
            let small: Bool = plane.pixels.withUnsafeBufferPointer { p in
                for v in p where v.isFinite {
                    let m = abs(v)
                    if m >= tinySpan { return false }
                    if m > peak { peak = m }
                }
                return true
            }
            if !small { return nil }
        }
        return peak > 0 ? peak : nil
    }
}
