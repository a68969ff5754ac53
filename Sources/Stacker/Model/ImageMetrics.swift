public import Registration
#if canImport(Glibc)
import Glibc
#endif

/// Quality measures between two images of the same size, for tests and
/// benchmarks that compare a stack with its ground truth.
public enum ImageMetrics {
    /// Mean squared error over all channels, on the 0…1 scale, optionally
    /// restricted to pixels where `mask` > 0.5 and to an inset `border`.
    public static func meanSquaredError(_ a: Image, _ b: Image, mask: Plane? = nil, border: Int = 0) -> Double {
        meanOver(a, b, mask: mask, border: border) { $0 * $0 }
    }

    /// Peak signal-to-noise ratio in dB for a peak of 1 (`10·log10(1/MSE)`);
    /// infinite for identical images. Same `mask` and `border` as the MSE.
    public static func psnr(_ a: Image, _ b: Image, mask: Plane? = nil, border: Int = 0) -> Double {
        let mse = meanSquaredError(a, b, mask: mask, border: border)
        return mse > 0 ? -10 * log10(mse) : .infinity
    }

    /// Mean absolute error over all channels where `mask` > 0.5 (all pixels when nil).
    public static func meanAbsoluteError(_ a: Image, _ b: Image, mask: Plane? = nil, border: Int = 0) -> Double {
        meanOver(a, b, mask: mask, border: border) { abs($0) }
    }

    /// Largest absolute difference over all channels where `mask` > 0.5
    /// (all pixels when nil), inside `border`; 0 when nothing is selected.
    public static func maxAbsoluteError(_ a: Image, _ b: Image, mask: Plane? = nil, border: Int = 0) -> Double {
        var worst = 0.0
        forEachDifference(a, b, mask: mask, border: border) { worst = max(worst, abs($0)) }
        return worst
    }

    /// The mean of `f(a − b)` over the selected samples (0 when none is selected).
    private static func meanOver(_ a: Image, _ b: Image, mask: Plane?, border: Int,
                                 _ f: (Double) -> Double) -> Double {
        var sum = 0.0
        var count = 0
        forEachDifference(a, b, mask: mask, border: border) {
            sum += f($0)
            count += 1
        }
        return count > 0 ? sum / Double(count) : 0
    }

    /// Calls `body(a − b)` for every selected sample.
    private static func forEachDifference(_ a: Image, _ b: Image, mask: Plane?, border: Int,
                                          _ body: (Double) -> Void) {
        precondition(a.width == b.width && a.height == b.height && a.channels == b.channels,
                     "images differ: \(a.width)×\(a.height)×\(a.channels) vs \(b.width)×\(b.height)×\(b.channels)")
        for c in 0..<a.channels {
            let pa = a.planes[c].pixels, pb = b.planes[c].pixels
            for y in border..<max(border, a.height - border) {
                for x in border..<max(border, a.width - border) {
                    let i = y * a.width + x
                    if let mask, mask.pixels[i] <= 0.5 { continue }
                    body(Double(pa[i] - pb[i]))
                }
            }
        }
    }
}
