import Registration

/// Adaptive Homogeneity-Directed demosaicing (AHD; Hirakawa & Parks 2005,
/// in the form dcraw and LibRaw give it): a Bayer mosaic to R, G, B that
/// interpolates the image twice, once along rows and once along columns,
/// and keeps at each pixel the one whose neighbourhood looks smoother in
/// CIELab, so edges are followed instead of averaged across.
///
/// Steps, on the mosaic `m` (nothing clamped or clipped):
/// 1. green at red and blue sites along the row (H) and along the column
///    (V): `(2 (g₋₁ + m₀ + g₊₁) − m₋₂ − m₊₂) / 4`, clamped between the two
///    green neighbours `g₋₁`, `g₊₁` on that axis;
/// 2. for each of H and V, red and blue from that image's green by colour
///    differences: at a green site the sample plus the mean (colour − green)
///    of the two neighbours carrying the colour; the other of red and blue
///    at a red or blue site the green plus the mean (colour − green) of the
///    4 diagonal neighbours;
/// 3. each image to CIELab, as if its R, G, B were linear sRGB (D65): the
///    camera's own primaries are not known here, so this approximates the
///    perceptual distances AHD compares, with a fast cube root (within 3e-5
///    relative; `AHDRowKernels.labCurve`);
/// 4. homogeneity: per pixel and image, how many of its 4 neighbours differ
///    by at most a tolerance in L and in a, b (the tolerances the smaller of
///    the H image's larger left/right difference and the V image's larger
///    up/down one);
/// 5. the output from the image whose homogeneity summed over the 3 × 3
///    neighbourhood is larger, the mean of both on a tie.
/// Pixels within 5 of the border, where the stencils do not fit, take the
/// bilinear values (`Debayer`), as dcraw's `border_interpolate(5)`; a
/// mosaic under 12 pixels a side is bilinear. Exact on flat colour up to
/// rounding.
///
/// One pass over the rows: green for row `y` is made when `y` is reached,
/// red, blue and Lab one row behind, homogeneity two, the output three, in
/// rings of 16 rows (14 rings, for a 6000-wide mosaic 5.4 MB), so the
/// working memory beside the output does not grow with the height. The
/// arithmetic is in `AHDRowKernels`, SIMD over columns.
enum AHDDebayer: RowBandDebayer {
    static let border = 5

    /// One direction's rows: its R, G, B, their Lab, and its homogeneity.
    private struct DirectionRings {
        let rgb: (RowRing, RowRing, RowRing)
        let lab: (RowRing, RowRing, RowRing)
        let homogeneity: RowRing

        init(width: Int) {
            rgb = (RowRing(width: width, filledWith: 0), RowRing(width: width, filledWith: 0), RowRing(width: width, filledWith: 0))
            lab = (RowRing(width: width, filledWith: 0), RowRing(width: width, filledWith: 0), RowRing(width: width, filledWith: 0))
            homogeneity = RowRing(width: width, filledWith: 0)
        }

        func colour(_ c: Int) -> RowRing { c == 0 ? rgb.0 : (c == 1 ? rgb.1 : rgb.2) }
        func rgbRows(_ y: Int) -> (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>) {
            (rgb.0(y), rgb.1(y), rgb.2(y))
        }
        func labRows(_ y: Int) -> AHDRowKernels.LabRows {
            func three(_ r: RowRing) -> (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>) {
                (r(y - 1), r(y), r(y + 1))
            }
            return AHDRowKernels.LabRows(l: three(lab.0), a: three(lab.1), b: three(lab.2))
        }
        func deallocate() {
            for ring in [rgb.0, rgb.1, rgb.2, lab.0, lab.1, lab.2, homogeneity] { ring.deallocate() }
        }
    }

    /// Steps 1–5 for the pixels 5 or more from the border of the planes
    /// `out` (`width` × `height`, at least 12 each), from the mosaic `src`,
    /// `V.scalarCount` columns at a time (at most `width` − 10).
    static func interior<V: SIMD>(_: V.Type, _ src: UnsafePointer<Float>,
                                          _ out: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
                                          width w: Int, height h: Int, pattern: BayerPattern) where V.Scalar == Float {
        typealias K = AHDRowKernels
        func m(_ y: Int) -> UnsafeMutablePointer<Float> { UnsafeMutablePointer(mutating: src + y * w) }
        let horizontal = DirectionRings(width: w), vertical = DirectionRings(width: w)
        defer { horizontal.deallocate(); vertical.deallocate() }

        for t in 0..<(h + 3) {
            let y0 = t
            if y0 >= 2 && y0 < h - 2 {
                let parity = 1 - pattern.greenParity(row: y0)
                K.green(V.self, rows: (m(y0), m(y0), m(y0), m(y0), m(y0)), shift: 1,
                        into: horizontal.rgb.1(y0), parity: parity, lo: 2, hi: w - 2)
                K.green(V.self, rows: (m(y0 - 2), m(y0 - 1), m(y0), m(y0 + 1), m(y0 + 2)), shift: 0,
                        into: vertical.rgb.1(y0), parity: parity, lo: 2, hi: w - 2)
            }
            let y1 = t - 1
            if y1 >= 3 && y1 < h - 3 {
                let rowColour = pattern.otherColour(row: y1)
                for d in [horizontal, vertical] {
                    K.redAndBlue(V.self, m: (m(y1 - 1), m(y1), m(y1 + 1)), g: (d.rgb.1(y1 - 1), d.rgb.1(y1), d.rgb.1(y1 + 1)),
                                 rowColour: d.colour(rowColour)(y1), columnColour: d.colour(2 - rowColour)(y1),
                                 greenParity: pattern.greenParity(row: y1), lo: 3, hi: w - 3)
                    K.lab(V.self, rgb: d.rgbRows(y1), into: (d.lab.0(y1), d.lab.1(y1), d.lab.2(y1)), lo: 3, hi: w - 3)
                }
            }
            let y2 = t - 2
            if y2 >= 4 && y2 < h - 4 {
                K.homogeneity(V.self, h: horizontal.labRows(y2), v: vertical.labRows(y2),
                              into: (horizontal.homogeneity(y2), vertical.homogeneity(y2)), lo: 4, hi: w - 4)
            }
            let y3 = t - 3
            if y3 >= 5 && y3 < h - 5 {
                func three(_ r: RowRing) -> (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>) {
                    (r(y3 - 1), r(y3), r(y3 + 1))
                }
                K.choose(V.self, homogeneity: three(horizontal.homogeneity), three(vertical.homogeneity),
                         h: horizontal.rgbRows(y3), v: vertical.rgbRows(y3),
                         into: (out.0 + y3 * w, out.1 + y3 * w, out.2 + y3 * w), lo: 5, hi: w - 5)
            }
        }
    }
}

// References
// - K. Hirakawa and T. W. Parks, "Adaptive homogeneity-directed
//   demosaicing algorithm", IEEE Trans. Image Processing 14(3), 360–369, 2005.
// - Dave Coffin's dcraw (`ahd_interpolate`, `cielab`), as LibRaw carries it:
//   the interpolation, homogeneity and selection steps and the sRGB→XYZ
//   constants; this is our own implementation of them.
