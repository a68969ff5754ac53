import Registration

/// White balance on a CFA mosaic and the camera matrix after the debayer:
/// how a camera raw's own colour becomes linear sRGB primaries (`--wb`).
///
/// The multipliers scale each CFA colour of the calibrated mosaic (before
/// the debayer, so the interpolation sees balanced neighbours); green is 1.
/// The matrix (`RAWMetadata.cameraToSRGB`, LibRaw's `rgb_cam`, whose rows
/// sum to 1 so a balanced grey stays grey) then maps each debayered pixel's
/// balanced camera R, G, B to linear sRGB. Nothing is clipped.
enum RawColour {
    /// The multipliers (R, G, B; G = 1) `choice` gives a mosaic of
    /// `pattern` whose file says `raw`, or nil for none: `.camera` the
    /// as-shot balance of the run's reference frame (`reference`) when it
    /// has one, else the file's own (nil for a file without one, such as a
    /// Bayer FITS), so a burst whose camera's auto white balance drifted is
    /// balanced alike; `.auto` grey world (the mean of the green samples
    /// over the mean of each colour's; nil when a mean is not positive),
    /// `.none` nil.
    static func multipliers(_ choice: WhiteBalance, mosaic: Plane, pattern: BayerPattern, raw: RAWMetadata?,
                            reference: [Float]? = nil) -> [Float]? {
        switch choice {
        case .none: return nil
        case .camera:
            guard let own = raw?.whiteBalance else { return nil }
            return reference ?? own
        case .auto:
            var sum = [Double](repeating: 0, count: 3), count = [Double](repeating: 0, count: 3)
            let w = mosaic.width
            mosaic.pixels.withUnsafeBufferPointer { m in
                for y in 0..<mosaic.height {
                    for x in 0..<w {
                        let c = pattern.channel(x: x, y: y)
                        sum[c] += Double(m[y * w + x])
                        count[c] += 1
                    }
                }
            }
            let means = (0..<3).map { count[$0] > 0 ? sum[$0] / count[$0] : 0 }
            guard means.allSatisfy({ $0 > 0 }) else { return nil }
            return means.map { Float(means[1] / $0) }
        }
    }

    /// `mosaic` with each sample times its CFA colour's multiplier.
    static func balanced(_ mosaic: Plane, pattern: BayerPattern, multipliers m: [Float]) -> Plane {
        let w = mosaic.width
        let table = pattern.channels.map { m[$0] }
        var pixels = mosaic.pixels
        pixels.withUnsafeMutableBufferPointer { p in
            for y in 0..<mosaic.height {
                let row = (y & 1) << 1
                for x in 0..<w { p[y * w + x] *= table[row | (x & 1)] }
            }
        }
        return Plane(width: w, height: mosaic.height, pixels: pixels)
    }

    /// Each pixel of a 3-channel `image` through the 3 × 3 row-major `matrix`.
    static func transformed(_ image: Image, matrix m: [Float]) -> Image {
        let (r, g, b) = (image.planes[0].pixels, image.planes[1].pixels, image.planes[2].pixels)
        let out = (0..<3).map { row in
            [Float](unsafeUninitializedCapacity: image.pixelCount) { dst, count in
                let (a, bb, c) = (m[3 * row], m[3 * row + 1], m[3 * row + 2])
                for i in 0..<image.pixelCount { dst[i] = a * r[i] + bb * g[i] + c * b[i] }
                count = image.pixelCount
            }
        }
        return Image(width: image.width, height: image.height,
                     planes: out.map { Plane(width: image.width, height: image.height, pixels: $0) })
    }
}
