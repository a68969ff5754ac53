import Registration

/// Demosaicing: a one-channel CFA mosaic (calibrated) to R, G, B planes.
enum Debayer {
    /// `mosaic` as R, G, B planes of the same size, by `method`.
    ///
    /// Bilinear: a pixel keeps its own colour; each missing colour is the
    /// mean of the pixels of the 3 × 3 neighbourhood that carry it (at a red
    /// or blue site green is the mean of the 4 orthogonal neighbours, the
    /// other of red and blue the mean of the 4 diagonal ones; at a green
    /// site red and blue are each the mean of the 2 neighbours on the row
    /// or column carrying them). At the border only the neighbours inside
    /// the image count. A mosaic of one row or column has no neighbour of
    /// some colour; such a sample is 0. (`BilinearDebayer` computes it row
    /// by row away from the border, `fillBilinear` at the border.)
    ///
    /// RCD: see `RCDDebayer`; its 4-pixel border (and mosaics under 10
    /// pixels a side) take the bilinear values.
    ///
    /// AHD: see `AHDDebayer`; its 5-pixel border (and mosaics under 12
    /// pixels a side) take the bilinear values.
    static func image(_ mosaic: Plane, pattern: BayerPattern, method: DebayerMethod) -> Image {
        switch method {
        case .bilinear: return BilinearDebayer.image(mosaic, pattern: pattern)
        case .rcd: return RCDDebayer.image(mosaic, pattern: pattern)
        case .ahd: return AHDDebayer.image(mosaic, pattern: pattern)
        }
    }

    /// `mosaic` as R, G, B planes whose pixels less than `border` from an
    /// edge are bilinear and the others are written by `interior`, given
    /// the mosaic and the planes (rows of the mosaic's width, row-major),
    /// which must write every one of them. A mosaic under `2 · border + 2`
    /// pixels a side is all bilinear and `interior` is not called.
    static func image(_ mosaic: Plane, pattern: BayerPattern, bilinearBorder border: Int,
                      interior: (UnsafePointer<Float>, (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>)) -> Void) -> Image {
        let w = mosaic.width, h = mosaic.height
        // Every pixel is written (the border by the bilinear fill, the rest
        // by `interior`), so the planes start uninitialised: zeroing them
        // was a tenth of RCD's instructions.
        var rgb = (0..<3).map { _ in [Float](unsafeUninitializedCapacity: w * h) { _, count in count = w * h } }
        let small = w < 2 * border + 2 || h < 2 * border + 2
        fillBilinear(mosaic, pattern: pattern, into: &rgb, border: small ? nil : border)
        if !small {
            mosaic.pixels.withUnsafeBufferPointer { src in withMutablePlanes(&rgb) { interior(src.baseAddress!, $0) } }
        }
        return Image(width: w, height: h, planes: rgb.map { Plane(width: w, height: h, pixels: $0) })
    }

    /// Writes the bilinear R, G, B of every pixel, or with `border` only of
    /// the pixels less than `border` from an edge, into `planes` (3 planes
    /// of the mosaic's size).
    static func fillBilinear(_ mosaic: Plane, pattern: BayerPattern, into planes: inout [[Float]], border: Int?) {
        let w = mosaic.width, h = mosaic.height
        let colours = pattern.channels
        mosaic.pixels.withUnsafeBufferPointer { src in
            withMutablePlanes(&planes) { r, g, b in
                for y in 0..<h {
                    let y0 = max(0, y - 1), y1 = min(h - 1, y + 1)
                    let edgeRow = border.map { y < $0 || y >= h - $0 } ?? true
                    // Interior rows visit only their border columns.
                    let skip = edgeRow ? 0..<0 : border.map { min($0, w)..<max($0, w - $0) } ?? 0..<0
                    for x in (skip.isEmpty ? [0..<w] : [0..<skip.lowerBound, skip.upperBound..<w]).joined() {
                        let x0 = max(0, x - 1), x1 = min(w - 1, x + 1)
                        let own = colours[(y & 1) << 1 | (x & 1)]
                        var sum: (Float, Float, Float) = (0, 0, 0)
                        var count: (Float, Float, Float) = (0, 0, 0)
                        for v in y0...y1 {
                            for u in x0...x1 where u != x || v != y {
                                let s = src[v * w + u]
                                switch colours[(v & 1) << 1 | (u & 1)] {
                                case 0: sum.0 += s; count.0 += 1
                                case 1: sum.1 += s; count.1 += 1
                                default: sum.2 += s; count.2 += 1
                                }
                            }
                        }
                        let i = y * w + x
                        r[i] = own == 0 ? src[i] : (count.0 > 0 ? sum.0 / count.0 : 0)
                        g[i] = own == 1 ? src[i] : (count.1 > 0 ? sum.1 / count.1 : 0)
                        b[i] = own == 2 ? src[i] : (count.2 > 0 ? sum.2 / count.2 : 0)
                    }
                }
            }
        }
    }

    /// Calls `body` with the first elements of the three arrays `planes`,
    /// each uniquely referenced (not copied) while `body` writes them.
    private static func withMutablePlanes(
        _ planes: inout [[Float]],
        _ body: ((UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>)) -> Void
    ) {
        var red = planes[0], green = planes[1], blue = planes[2]
        planes = []
        red.withUnsafeMutableBufferPointer { r in
            green.withUnsafeMutableBufferPointer { g in
                blue.withUnsafeMutableBufferPointer { b in body((r.baseAddress!, g.baseAddress!, b.baseAddress!)) }
            }
        }
        planes = [red, green, blue]
    }
}
