internal import Registration

/// Variable box means over planes, the depth-of-field blur's kernel. Each pass runs along rows from a running prefix sum
/// in `Double` (so a long row loses no precision), on the calling thread
/// (a batch runs one photo per core); the vertical pass is the horizontal one on the transposed plane.
/// Windows are clipped at the border and divided by the samples they hold.
enum BoxFilter {
    /// A variable box mean: each pixel averages the window of radius
    /// `radius[x, y]` (rounded to whole pixels) around it, horizontally then
    /// vertically (the separable approximation of a square window: the
    /// vertical pass uses the radius of the pixel it writes).
    static func variableMean(_ plane: Plane, radius: Plane) -> Plane {
        let rows = horizontal(plane, radius: radius)
        return horizontal(rows.transposed, radius: radius.transposed).transposed
    }

    /// The row pass with a per-pixel radius plane.
    private static func horizontal(_ plane: Plane, radius: Plane) -> Plane {
        precondition(radius.width == plane.width && radius.height == plane.height,
                     "radius plane \(radius.width)×\(radius.height) does not match \(plane.width)×\(plane.height)")
        return radius.pixels.withUnsafeBufferPointer { rad in
            horizontal(plane) { i in Int(max(0, rad[i]).rounded()) }
        }
    }

    /// The row pass: pixel `i` (row-major index) averages the samples of its
    /// row within `radius(i)` of it.
    private static func horizontal(_ plane: Plane, radius: (Int) -> Int) -> Plane {
        let w = plane.width, h = plane.height
        var prefix = [Double](repeating: 0, count: w + 1)
        let out = [Float](unsafeUninitializedCapacity: w * h) { dst, initialised in
            plane.pixels.withUnsafeBufferPointer { src in
                for y in 0..<h {
                    let base = y * w
                    for x in 0..<w { prefix[x + 1] = prefix[x] + Double(src[base + x]) }
                    for x in 0..<w {
                        let r = radius(base + x)
                        let lo = max(0, x - r), hi = min(w, x + r + 1)
                        dst[base + x] = Float((prefix[hi] - prefix[lo]) / Double(hi - lo))
                    }
                }
            }
            initialised = w * h
        }
        return Plane(width: w, height: h, pixels: out)
    }
}

extension PixelPlane where Sample == Float {
    /// The plane mirrored about its main diagonal (width and height swapped).
    var transposed: Plane {
        let w = width, h = height
        var out = [Float](repeating: 0, count: w * h)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                // Blocks of 32 × 32 keep both sides in cache.
                let block = 32
                for by in stride(from: 0, to: h, by: block) {
                    for bx in stride(from: 0, to: w, by: block) {
                        for y in by..<min(h, by + block) {
                            for x in bx..<min(w, bx + block) { dst[x * h + y] = src[y * w + x] }
                        }
                    }
                }
            }
        }
        return Plane(width: h, height: w, pixels: out)
    }
}
