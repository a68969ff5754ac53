#if canImport(Glibc)
import Glibc
#endif
public import Registration

/// Edge-aware upsampling of a depth map or matte onto the photo's grid
/// (Kopf, Cohen, Lischinski & Uyttendaele's joint bilateral upsampling):
/// each photo pixel averages the 4 × 4 nearest low-resolution samples,
/// weighted by their distance (a Gaussian of σ = 1 low-resolution pixel)
/// and by how close the photo's colour there is to the photo's colour
/// under that sample (a Gaussian of σ = `colourSigma` in 0…1 RGB). A
/// sample across the subject's outline has another colour and hardly
/// counts, so a mask made from the result follows the outline in the
/// photo rather than the blocky one of the small map, and texture inside
/// the subject (within σ of its colour) is not copied into the depth.
public enum JointBilateralUpsampling {
    /// The colour difference (RGB distance, 0…1 samples) at which a
    /// sample's weight falls to e^(−1/2): textures of ±0.1 stay one
    /// surface, a subject/background step of 0.3 and more is cut.
    public static let colourSigma: Float = 0.12

    /// Entries of the colour weight's lookup table, over squared colour
    /// differences from 0 to `rangeCutoff` σ² (beyond it the weight is
    /// below e^(−8) and taken as 0).
    static let rangeTableSize = 1024
    static let rangeCutoff: Float = 16

    /// `low` brought to `photo`'s size (any size ratio; equal sizes give
    /// `low` unchanged). The result stays within `low`'s range (a weighted
    /// mean of its samples). The spatial weight is separable and tabulated
    /// per output column and row, the colour weight tabulated over the
    /// squared difference, so a pixel costs 16 table look-ups and no `exp`;
    /// where the 16 samples span less than one 8-bit level the nearest is
    /// taken (the result moves by less than that level).
    public static func upsample(_ low: Plane, guide photo: Image) -> Plane {
        let W = photo.width, H = photo.height, w = low.width, h = low.height
        if w == W && h == H { return low }
        // The photo's colour under each low-resolution sample: the mean of its footprint.
        let small = photo.planes.map { $0.areaMean(width: w, height: h) }
        let channels = photo.channels
        let columns = taps(count: W, low: w), rows = taps(count: H, low: h)
        let sigma2 = colourSigma * colourSigma
        let rangeTable = (0..<rangeTableSize).map { k in
            (-(Float(k) + 0.5) / Float(rangeTableSize) * rangeCutoff / 2).exponentiated
        }
        let tableScale = Float(rangeTableSize) / (rangeCutoff * sigma2)
        let flat = flatWindows(low)
        var out = [Float](repeating: 0, count: W * H)
        for y in 0..<H {
            let row = rows[y]
            for x in 0..<W {
                let column = columns[x]
                // All 16 samples within one level: no edge to follow, any of them will do.
                if flat[row.first * w + column.first] {
                    out[y * W + x] = low.pixels[row.nearest * w + column.nearest]
                    continue
                }
                var sum: Float = 0, weights: Float = 0
                for (qy, wy) in zip(row.first..<(row.first + row.weights.count), row.weights) {
                    for (qx, wx) in zip(column.first..<(column.first + column.weights.count), column.weights) {
                        let q = qy * w + qx
                        var d2: Float = 0
                        for c in 0..<channels {
                            let e = photo.planes[c].pixels[y * W + x] - small[c].pixels[q]
                            d2 += e * e
                        }
                        let k = Int(d2 * tableScale)
                        guard k < rangeTableSize else { continue }
                        let weight = wy * wx * rangeTable[k]
                        sum += weight * low.pixels[q]
                        weights += weight
                    }
                }
                // Every sample far in colour: the nearest one.
                out[y * W + x] = weights > 1e-12 ? sum / weights : low.pixels[row.nearest * w + column.nearest]
            }
        }
        return Plane(width: W, height: H, pixels: out)
    }

    /// Whether the 4 × 4 window of `low` starting at each sample (clipped at
    /// the border) spans less than one 8-bit level.
    static func flatWindows(_ low: Plane) -> [Bool] {
        let w = low.width, h = low.height
        // Row-wise ranges over 4 samples, then column-wise over 4 rows.
        var lo = [Float](repeating: 0, count: w * h), hi = [Float](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var a = Float.infinity, b = -Float.infinity
                for k in x..<min(w, x + 4) { a = min(a, low.pixels[y * w + k]); b = max(b, low.pixels[y * w + k]) }
                lo[y * w + x] = a
                hi[y * w + x] = b
            }
        }
        var flat = [Bool](repeating: false, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var a = Float.infinity, b = -Float.infinity
                for k in y..<min(h, y + 4) { a = min(a, lo[k * w + x]); b = max(b, hi[k * w + x]) }
                flat[y * w + x] = b - a < 1 / 255
            }
        }
        return flat
    }

    /// For each of `count` output positions along one axis: the first of
    /// the (up to 4) low-resolution samples around it, their spatial
    /// weights e^(−d²/2) (d in low-resolution pixels), and the nearest one.
    static func taps(count: Int, low: Int) -> [(first: Int, weights: [Float], nearest: Int)] {
        let scale = Float(low) / Float(count)
        return (0..<count).map { i in
            let f = (Float(i) + 0.5) * scale - 0.5
            let first = max(0, Int(f.rounded(.down)) - 1), last = min(low - 1, Int(f.rounded(.down)) + 2)
            let weights = (first...last).map { q in (-(Float(q) - f) * (Float(q) - f) / 2).exponentiated }
            return (first, weights, min(low - 1, max(0, Int(f.rounded()))))
        }
    }
}

extension Float {
    /// e^self.
    var exponentiated: Float { expf(self) }
}

extension PixelPlane where Sample == Float {
    /// The plane resampled to `width × height` by bilinear interpolation,
    /// pixel centres aligned (the corners of both grids coincide), edges
    /// clamped.
    public func bilinearResized(width ow: Int, height oh: Int) -> Plane {
        if ow == width && oh == height { return self }
        let sx = Float(width) / Float(ow), sy = Float(height) / Float(oh)
        var out = [Float](repeating: 0, count: ow * oh)
        for y in 0..<oh {
            let fy = min(Float(height - 1), max(0, (Float(y) + 0.5) * sy - 0.5))
            let y0 = Int(fy), y1 = min(height - 1, y0 + 1), ty = fy - Float(y0)
            for x in 0..<ow {
                let fx = min(Float(width - 1), max(0, (Float(x) + 0.5) * sx - 0.5))
                let x0 = Int(fx), x1 = min(width - 1, x0 + 1), tx = fx - Float(x0)
                let top = pixels[y0 * width + x0] * (1 - tx) + pixels[y0 * width + x1] * tx
                let bottom = pixels[y1 * width + x0] * (1 - tx) + pixels[y1 * width + x1] * tx
                out[y * ow + x] = top * (1 - ty) + bottom * ty
            }
        }
        return Plane(width: ow, height: oh, pixels: out)
    }

    /// The plane shrunk to `width × height` (each at most the plane's):
    /// every output pixel the mean of the input pixels whose centres fall
    /// in its footprint (at least the one nearest its centre).
    func areaMean(width ow: Int, height oh: Int) -> Plane {
        var out = [Float](repeating: 0, count: ow * oh)
        for y in 0..<oh {
            let ya = y * height / oh, yb = max(ya + 1, (y + 1) * height / oh)
            for x in 0..<ow {
                let xa = x * width / ow, xb = max(xa + 1, (x + 1) * width / ow)
                var sum: Float = 0
                for yy in ya..<min(height, yb) { for xx in xa..<min(width, xb) { sum += pixels[yy * width + xx] } }
                out[y * ow + x] = sum / Float((min(height, yb) - ya) * (min(width, xb) - xa))
            }
        }
        return Plane(width: ow, height: oh, pixels: out)
    }
}

// References
// - J. Kopf, M. F. Cohen, D. Lischinski, M. Uyttendaele, "Joint Bilateral
//   Upsampling", ACM Transactions on Graphics 26(3), 2007.
