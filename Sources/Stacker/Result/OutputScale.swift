import Registration

/// How a stack's values map to the output's range (`--output-scale`).
///
/// Integer data that fill only a small part of their type's range (a
/// 16-bit FITS from a camera whose values span a few thousand ADU) stack
/// to a result as narrow, which a viewer without its own stretch shows
/// almost black.
public enum OutputScale: String, Sendable, CaseIterable {
    /// The values as stacked, in the inputs' scale (0…1 of the reference's
    /// integer type): a 16-bit input read back from a 16-bit output has
    /// the same ADU.
    case native
    /// The result's smallest…largest value stretched linearly to the
    /// output's full range (one map for all channels, so colour ratios
    /// about the minimum are kept).
    case data

    /// `image` as written under this scale: as it is for `.native`, or for
    /// `.data` each sample `(v − range.lowerBound) / range.count`, where
    /// `range` is the image's own data range (`Image.dataRange`); an image
    /// with no range (empty, or all one value) is left as it is.
    public func apply(to image: Image) -> Image {
        guard self == .data, let range = image.dataRange, range.upperBound > range.lowerBound else { return image }
        let low = range.lowerBound, scale = 1 / (range.upperBound - range.lowerBound)
        var out = image
        for c in 0..<out.channels {
            out.planes[c].pixels.withUnsafeMutableBufferPointer { p in
                for i in 0..<p.count { p[i] = (p[i] - low) * scale }
            }
        }
        return out
    }
}

extension Image {
    /// The smallest and largest finite sample over all channels, or nil
    /// for an image without one (read 16 samples at a time).
    public var dataRange: ClosedRange<Float>? {
        typealias Lanes = SIMD16<Float>
        var low = Float.infinity, high = -Float.infinity
        for plane in planes {
            plane.pixels.withUnsafeBufferPointer { p in
                guard let base = p.baseAddress else { return }
                var lows = Lanes(repeating: .infinity), highs = Lanes(repeating: -.infinity)
                var i = 0
                while i + 16 <= p.count {
                    let v = UnsafeRawPointer(base + i).loadUnaligned(as: Lanes.self)
                    // ±∞ and NaN (which compares false) leave the bounds as they are.
                    let finite = (v .> Lanes(repeating: -.infinity)) .& (v .< Lanes(repeating: .infinity))
                    lows = lows.replacing(with: v, where: finite .& (v .< lows))
                    highs = highs.replacing(with: v, where: finite .& (v .> highs))
                    i += 16
                }
                low = Swift.min(low, lows.min())
                high = Swift.max(high, highs.max())
                while i < p.count {
                    let v = p[i]
                    if v.isFinite {
                        low = Swift.min(low, v)
                        high = Swift.max(high, v)
                    }
                    i += 1
                }
            }
        }
        return low <= high ? low...high : nil
    }
}
