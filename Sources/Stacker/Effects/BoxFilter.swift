internal import Registration

/// Variable box means over single planes: the window `DepthOfFieldBlur`
/// computes for all its lanes at once, and the reference it is tested
/// against. Each pass runs from running prefix sums in `Double` (so a long
/// row or column loses no precision), on the calling thread (a batch runs
/// one photo per core): along rows, then down columns in strips of 64
/// columns, so the column pass reads the plane in row order and needs no
/// transposed copy.
/// Windows are clipped at the border and divided by the samples they hold.
enum BoxFilter {
    /// Columns per strip of the column pass: its prefix sums, (height + 1)
    /// × 64 doubles, stay in cache for a photo's height.
    static let strip = 64

    /// Per-pixel radii rounded to whole pixels once, so several planes
    /// blurred alike share them.
    struct Radii {
        let width: Int, height: Int
        let values: [Int32]

        init(_ radius: Plane) {
            width = radius.width
            height = radius.height
            values = radius.pixels.map { Int32(max(0, $0).rounded()) }
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
        return vertical(horizontal(plane, radius: radii.values), radius: radii.values)
    }

    /// The column pass: pixel `i` (row-major) averages the samples of its
    /// column within `radius[i]` of it.
    private static func vertical(_ plane: Plane, radius: [Int32]) -> Plane {
        let w = plane.width, h = plane.height
        var prefix = [Double](repeating: 0, count: (h + 1) * strip)
        let out = [Float](unsafeUninitializedCapacity: w * h) { dst, initialised in
            plane.pixels.withUnsafeBufferPointer { src in
                radius.withUnsafeBufferPointer { rad in
                    prefix.withUnsafeMutableBufferPointer { prefix in
                        for x0 in stride(from: 0, to: w, by: strip) {
                            let n = min(strip, w - x0)
                            for k in 0..<n { prefix[k] = 0 }
                            for y in 0..<h {
                                let from = y * w + x0, above = y * strip, here = (y + 1) * strip
                                for k in 0..<n { prefix[here + k] = prefix[above + k] + Double(src[from + k]) }
                            }
                            for y in 0..<h {
                                let at = y * w + x0
                                for k in 0..<n {
                                    let r = Int(rad[at + k])
                                    let lo = max(0, y - r), hi = min(h, y + r + 1)
                                    dst[at + k] = Float((prefix[hi * strip + k] - prefix[lo * strip + k]) / Double(hi - lo))
                                }
                            }
                        }
                    }
                }
            }
            initialised = w * h
        }
        return Plane(width: w, height: h, pixels: out)
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
