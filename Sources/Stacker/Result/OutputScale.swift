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
    /// for an image without one.
    public var dataRange: ClosedRange<Float>? {
        var low = Float.infinity, high = -Float.infinity
        for plane in planes {
            plane.pixels.withUnsafeBufferPointer { p in
                for v in p where v.isFinite {
                    low = Swift.min(low, v)
                    high = Swift.max(high, v)
                }
            }
        }
        return low <= high ? low...high : nil
    }
}
