public import Registration

/// How each frame's background is matched to the reference's before the
/// frames are combined (`--normalize`), so that rejection in sigma-clip,
/// median and mode acts on outliers (trails, planes, hot pixels) rather
/// than on frame-wide changes of sky level or transparency.
///
/// With `m` the median and `s` the robust σ (1.4826 · MAD) of a channel,
/// measured on the calibrated frame before warping (`RobustStatistics`),
/// a frame's sample `x` becomes:
/// - `additive`: `x + (m_ref − m)`;
/// - `multiplicative`: `x · m_ref / m` (left alone when `m ≤ 0`);
/// - `addscale`: `(x − m) · s_ref / s + m_ref` (scale 1 when `s = 0`).
public enum Normalization: String, Sendable, CaseIterable {
    /// Frames are combined as they are.
    case none
    /// Match the background level by an offset.
    case additive
    /// Match the background level by a gain.
    case multiplicative
    /// Match the background level and its spread (offset and gain).
    case addscale

    /// Per-channel `(gain, offset)` mapping a frame with background
    /// statistics `frame` onto `reference`: `x′ = gain · x + offset`.
    public func coefficients(frame: [RobustStatistics], reference: [RobustStatistics]) -> [(gain: Float, offset: Float)] {
        zip(frame, reference).map { f, r in
            switch self {
            case .none:
                return (1, 0)
            case .additive:
                return (1, Float(r.median - f.median))
            case .multiplicative:
                return f.median > 0 ? (Float(r.median / f.median), 0) : (1, 0)
            case .addscale:
                let gain = f.sigma > 0 && r.sigma > 0 ? r.sigma / f.sigma : 1
                return (Float(gain), Float(r.median - gain * f.median))
            }
        }
    }

    /// Applies per-channel `(gain, offset)` to `planes` in place.
    public static func apply(_ coefficients: [(gain: Float, offset: Float)], to planes: inout [Plane]) {
        for c in planes.indices {
            guard let k = acting(coefficients, channel: c) else { continue }
            planes[c].pixels.withUnsafeMutableBufferPointer { p in
                if let base = p.baseAddress { apply(k, to: base, count: p.count) }
            }
        }
    }

    /// Applies per-channel `(gain, offset)` to the first `count` samples of
    /// each of `channels` (one buffer per channel; missing coefficients
    /// leave a channel as it is).
    static func apply(_ coefficients: [(gain: Float, offset: Float)],
                      to channels: [UnsafeMutablePointer<Float>], count: Int) {
        for (c, p) in channels.enumerated() {
            if let k = acting(coefficients, channel: c) { apply(k, to: p, count: count) }
        }
    }

    /// Channel `c`'s coefficients when they change it; nil when they are
    /// missing or `(1, 0)`, which leave it as it is.
    static func acting(_ coefficients: [(gain: Float, offset: Float)], channel c: Int) -> (gain: Float, offset: Float)? {
        guard c < coefficients.count, coefficients[c].gain != 1 || coefficients[c].offset != 0 else { return nil }
        return coefficients[c]
    }

    /// `x′ = gain · x + offset` on `count` samples at `p`.
    private static func apply(_ k: (gain: Float, offset: Float), to p: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { p[i] = k.gain * p[i] + k.offset }
    }
}

extension Image {
    /// The background statistics of each channel (median, robust σ).
    public var backgroundStatistics: [RobustStatistics] { planes.map(RobustStatistics.of) }
}
