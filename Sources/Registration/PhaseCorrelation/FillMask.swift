/// The pixels of a plane that hold no data: a constant fill connected to the
/// plane's border, such as the black surround of an earlier warp, a stitched
/// or derotated frame, an ultrasound fan or the corners of a vignetted frame.
///
/// Detection (`detect`): the darkest sample value of the outermost ring of
/// pixels is the candidate fill when it makes up at least
/// `minimumRingShare` of the ring; the fill is then every pixel holding
/// exactly that value that is 4-connected to a ring pixel holding it (flood
/// fill). Exact equality is deliberate: a fill is written by software, while
/// real texture, even a dark or clipped one, is rarely exactly constant
/// over many pixels once noise or JPEG compression has touched it. A fill
/// covering less than `significantFraction` of the plane is ignored (nil):
/// the phase correlation's Hann taper already discounts a thin edge.
/// Only the darkest value can be a fill: the fills software writes (warps,
/// derotation, masks, vignetting) are black, while a bright constant at the
/// edge is most often a clipped highlight (a blown sky at exactly 255),
/// real content that the unmasked path registers well. A white border is
/// therefore not detected.
///
/// Why it matters: a fill identical in both frames correlates with itself at
/// shift 0, and its straight edges dominate the phase correlation (on
/// scikit-image's masked pairs, shifts of 184 px were reported as 0 with
/// score 0.07–0.11). Pixels in the fill are left out of the masked
/// correlation (`MaskedCorrelation`), the overlap agreement and the direct
/// refinement.
public struct FillMask: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Row-major, 1 where the plane holds data, 0 where it holds the fill.
    public var valid: [UInt8]
    /// The share (0…1) of the plane's pixels that are fill.
    public let filledFraction: Double
    /// The fill's value, in the plane's units (a `BytePlane`'s `v / 255`).
    public let fill: Float

    /// Share of the border ring the candidate fill value must hold.
    public static let minimumRingShare = 0.05
    /// Share of the plane the fill must cover to count: 1 %.
    public static let significantFraction = 0.01

    /// A mask from its validity samples (`valid.count == width * height`).
    public init(width: Int, height: Int, valid: [UInt8], fill: Float = 0) {
        precondition(valid.count == width * height, "mask \(width)×\(height) needs \(width * height) samples")
        self.width = width
        self.height = height
        self.valid = valid
        self.fill = fill
        let filled = valid.reduce(0) { $0 + ($1 == 0 ? 1 : 0) }
        filledFraction = valid.isEmpty ? 0 : Double(filled) / Double(valid.count)
    }

    /// The fill of `plane` connected to its border (see the type's
    /// comment), or nil when there is none covering at least
    /// `significantFraction` of the plane. Cost: one pass over the border
    /// ring for planes without a candidate fill (every ordinary photo); a
    /// flood fill over the filled region otherwise.
    package static func detect<F: SamplePlane>(_ plane: F) -> FillMask? {
        let w = plane.width, h = plane.height
        guard w >= 3, h >= 3 else { return nil }
        return plane.withSampleBuffer { p -> FillMask? in
            // The ring, clockwise, each pixel once.
            var ring: [Int] = []
            ring.reserveCapacity(2 * (w + h))
            for x in 0..<w { ring.append(x) }
            for y in 1..<h { ring.append(y * w + w - 1) }
            for x in stride(from: w - 2, through: 0, by: -1) { ring.append((h - 1) * w + x) }
            for y in stride(from: h - 2, through: 1, by: -1) { ring.append(y * w) }
            // The candidate is the ring's darkest value (see the type's comment).
            let darkest = ring.lazy.map { p[$0].float }.min()!
            let bits = darkest.bitPattern
            let count = ring.lazy.filter { p[$0].float.bitPattern == bits }.count
            guard darkest.isFinite, Double(count) >= minimumRingShare * Double(ring.count) else { return nil }
            // Flood fill from the ring through exactly equal samples.
            var valid = [UInt8](repeating: 1, count: w * h)
            var stack: [Int] = []
            for i in ring where p[i].float.bitPattern == bits && valid[i] == 1 {
                valid[i] = 0
                stack.append(i)
            }
            var filled = stack.count
            while let i = stack.popLast() {
                let x = i % w
                func visit(_ j: Int) {
                    if valid[j] == 1 && p[j].float.bitPattern == bits {
                        valid[j] = 0
                        filled += 1
                        stack.append(j)
                    }
                }
                if x > 0 { visit(i - 1) }
                if x < w - 1 { visit(i + 1) }
                if i >= w { visit(i - w) }
                if i < (h - 1) * w { visit(i + w) }
            }
            guard Double(filled) >= significantFraction * Double(w * h) else { return nil }
            return FillMask(width: w, height: h, valid: valid, fill: Float(bitPattern: bits) * F.Sample.unit)
        }
    }

    /// The mask with the fill grown by `radius` px in every direction
    /// (Chebyshev distance): pixels next to the fill are often blends of fill
    /// and data (interpolated warps, antialiased edges), and a filter of
    /// half-width `radius` centred there would read the fill.
    public func dilated(by radius: Int) -> FillMask {
        guard radius > 0 else { return self }
        let w = width, h = height
        // Separable: rows, then columns; a pixel stays valid only when every
        // pixel within `radius` is.
        var rows = [UInt8](repeating: 1, count: w * h)
        for y in 0..<h {
            var lastFill = Int.min / 2
            var x = 0
            // Distance to the nearest fill on the left, then on the right.
            while x < w {
                if valid[y * w + x] == 0 { lastFill = x }
                if x - lastFill <= radius { rows[y * w + x] = 0 }
                x += 1
            }
            var nextFill = Int.max / 2
            x = w - 1
            while x >= 0 {
                if valid[y * w + x] == 0 { nextFill = x }
                if nextFill - x <= radius { rows[y * w + x] = 0 }
                x -= 1
            }
        }
        // Columns, row by row (cache-friendly): the last fill row seen in
        // each column going down, then the next one going up.
        var out = [UInt8](repeating: 1, count: w * h)
        var near = [Int](repeating: Int.min / 2, count: w)
        for y in 0..<h {
            for x in 0..<w {
                if rows[y * w + x] == 0 { near[x] = y }
                if y - near[x] <= radius { out[y * w + x] = 0 }
            }
        }
        for x in 0..<w { near[x] = Int.max / 2 }
        for y in stride(from: h - 1, through: 0, by: -1) {
            for x in 0..<w {
                if rows[y * w + x] == 0 { near[x] = y }
                if near[x] - y <= radius { out[y * w + x] = 0 }
            }
        }
        return FillMask(width: w, height: h, valid: out, fill: fill)
    }

    /// The mask of the plane shrunk by `factor` (`Plane.downsampled(by:)`:
    /// the top-left `factor`² block of each output pixel): a coarse pixel is
    /// valid only when all its fine pixels are, so no fill leaks into the
    /// coarse search.
    public func downsampled(by factor: Int) -> FillMask {
        guard factor > 1 else { return self }
        let ow = width / factor, oh = height / factor
        var out = [UInt8](repeating: 1, count: ow * oh)
        for oy in 0..<oh {
            for ox in 0..<ow {
                var all: UInt8 = 1
                for dy in 0..<factor {
                    let row = (oy * factor + dy) * width + ox * factor
                    for dx in 0..<factor { all &= valid[row + dx] }
                }
                out[oy * ow + ox] = all
            }
        }
        return FillMask(width: ow, height: oh, valid: out, fill: fill)
    }
}

// References
// - D. Padfield, "Masked object registration in the Fourier domain", IEEE
//   Transactions on Image Processing 21(5), 2706–2718, 2012 (why the fill
//   must be masked rather than correlated).
// - P. Soille, Morphological Image Analysis, 2nd ed., Springer, 2003
//   (connected components by flood fill; dilation by a square as two
//   one-dimensional passes).
