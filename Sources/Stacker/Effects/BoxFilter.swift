internal import Registration

/// Variable box means over planes, the depth-of-field blur's kernel. Each
/// pass runs along rows from a running prefix sum in `Double` (so a long
/// row loses no precision), on the calling thread (a batch runs one photo
/// per core); the vertical pass is the horizontal one on the transposed
/// plane. Windows are clipped at the border and divided by the samples
/// they hold.
enum BoxFilter {
    /// Per-pixel radii rounded to whole pixels once, row-major for the row
    /// pass and transposed for the column pass, so several planes blurred
    /// alike share them.
    struct Radii {
        let width: Int, height: Int
        let rows: [Int32], columns: [Int32]

        init(_ radius: Plane) {
            width = radius.width
            height = radius.height
            rows = radius.pixels.map { Int32(max(0, $0).rounded()) }
            columns = radius.transposed.pixels.map { Int32(max(0, $0).rounded()) }
        }
    }

    /// A variable box mean: each pixel averages the window of radius
    /// `radius[x, y]` (rounded to whole pixels) around it, horizontally then
    /// vertically (the separable approximation of a square window: the
    /// vertical pass uses the radius of the pixel it writes).
    static func variableMean(_ plane: Plane, radius: Plane) -> Plane {
        variableMean(plane, radii: Radii(radius))
    }

    /// `variableMean(_:radius:)` with the radii already rounded.
    static func variableMean(_ plane: Plane, radii: Radii) -> Plane {
        precondition(radii.width == plane.width && radii.height == plane.height,
                     "radius plane \(radii.width)×\(radii.height) does not match \(plane.width)×\(plane.height)")
        let rows = horizontal(plane, radius: radii.rows)
        return horizontal(rows.transposed, radius: radii.columns).transposed
    }

    /// The row pass: pixel `i` (row-major) averages the samples of its row
    /// within `radius[i]` of it.
    private static func horizontal(_ plane: Plane, radius: [Int32]) -> Plane {
        let w = plane.width, h = plane.height
        var prefix = [Double](repeating: 0, count: w + 1)
        let out = [Float](unsafeUninitializedCapacity: w * h) { dst, initialised in
            plane.pixels.withUnsafeBufferPointer { src in
                radius.withUnsafeBufferPointer { rad in
                    prefix.withUnsafeMutableBufferPointer { prefix in
                        for y in 0..<h {
                            let base = y * w
                            var running = 0.0
                            for x in 0..<w {
                                running += Double(src[base + x])
                                prefix[x + 1] = running
                            }
                            for x in 0..<w {
                                let r = Int(rad[base + x])
                                let lo = max(0, x - r), hi = min(w, x + r + 1)
                                dst[base + x] = Float((prefix[hi] - prefix[lo]) / Double(hi - lo))
                            }
                        }
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
