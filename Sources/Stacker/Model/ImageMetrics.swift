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

    /// PSNR of the Rec. 601 lumas (`Image.luma`: the plane itself for a
    /// gray image), same `mask`, `border` and peak as `psnr`.
    public static func lumaPSNR(_ a: Image, _ b: Image, mask: Plane? = nil, border: Int = 0) -> Double {
        psnr(Image(width: a.width, height: a.height, planes: [a.luma]),
             Image(width: b.width, height: b.height, planes: [b.luma]), mask: mask, border: border)
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

    /// What is left of moving objects: the mean absolute error against the
    /// truth over `transientMask` (> 0.5 where anything transient passed in
    /// any frame, on the reference grid; `Scene.transientMask`), inside
    /// `border`. 0 means every trace is gone; a plain average of a burst
    /// keeps ghosts of a few per cent.
    public static func ghostResidual(_ result: Image, truth: Image, transientMask: Plane, border: Int = 0) -> Double {
        meanAbsoluteError(result, truth, mask: transientMask, border: border)
    }

    /// The structural similarity index (Wang, Bovik, Sheikh and Simoncelli,
    /// 2004) for a peak of 1: local means, variances and covariance under an
    /// 11 × 11 Gaussian window of σ 1.5, constants (0.01)² and (0.03)²,
    /// averaged over the windows that fit inside `border` and over channels.
    /// 1 for identical images.
    public static func ssim(_ a: Image, _ b: Image, border: Int = 0) -> Double {
        precondition(a.width == b.width && a.height == b.height && a.channels == b.channels,
                     "images differ: \(a.width)×\(a.height)×\(a.channels) vs \(b.width)×\(b.height)×\(b.channels)")
        let radius = 5
        let taps = (-radius...radius).map { exp(-Double($0 * $0) / (2 * 1.5 * 1.5)) }
        let total = taps.reduce(0, +)
        let window = taps.map { $0 / total }
        let inset = border + radius
        guard a.width > 2 * inset, a.height > 2 * inset else { return a == b ? 1 : 0 }
        var sum = 0.0
        for c in 0..<a.channels {
            let x = a.planes[c].pixels.map(Double.init), y = b.planes[c].pixels.map(Double.init)
            let blur = { (v: [Double]) in gaussian(v, width: a.width, height: a.height, window: window) }
            let mx = blur(x), my = blur(y)
            let sxx = blur(zip(x, x).map(*)), syy = blur(zip(y, y).map(*)), sxy = blur(zip(x, y).map(*))
            let c1 = 0.01 * 0.01, c2 = 0.03 * 0.03
            var channelSum = 0.0
            for row in inset..<(a.height - inset) {
                for col in inset..<(a.width - inset) {
                    let i = row * a.width + col
                    let vx = sxx[i] - mx[i] * mx[i], vy = syy[i] - my[i] * my[i], cxy = sxy[i] - mx[i] * my[i]
                    channelSum += (2 * mx[i] * my[i] + c1) * (2 * cxy + c2)
                        / ((mx[i] * mx[i] + my[i] * my[i] + c1) * (vx + vy + c2))
                }
            }
            sum += channelSum / Double((a.width - 2 * inset) * (a.height - 2 * inset))
        }
        return sum / Double(a.channels)
    }

    /// `values` (a `width × height` plane) convolved with the separable
    /// `window` along rows then columns; edges repeat the nearest sample.
    private static func gaussian(_ values: [Double], width: Int, height: Int, window: [Double]) -> [Double] {
        let r = window.count / 2
        var rows = [Double](repeating: 0, count: values.count)
        for y in 0..<height {
            for x in 0..<width {
                var s = 0.0
                for k in -r...r { s += window[k + r] * values[y * width + min(max(x + k, 0), width - 1)] }
                rows[y * width + x] = s
            }
        }
        var out = [Double](repeating: 0, count: values.count)
        for y in 0..<height {
            for x in 0..<width {
                var s = 0.0
                for k in -r...r { s += window[k + r] * rows[min(max(y + k, 0), height - 1) * width + x] }
                out[y * width + x] = s
            }
        }
        return out
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
