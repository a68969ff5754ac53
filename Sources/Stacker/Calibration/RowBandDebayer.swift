import Registration

/// A debayer that writes the pixels `border` or more from every edge in
/// one pass over the rows with SIMD row kernels, the rest by the bilinear
/// fill (`Debayer.image(_:pattern:bilinearBorder:interior:)`):
/// `RCDDebayer`, `AHDDebayer`.
protocol RowBandDebayer {
    /// How far from the edges the stencils reach: closer pixels are bilinear.
    static var border: Int { get }

    /// Writes every pixel `border` or more from the edges of the planes
    /// `rgb` (`width` × `height`, each at least `2 · border + 2`) from the
    /// mosaic `src` (of `pattern` at its top-left), `V.scalarCount` columns
    /// at a time (at most `width − 2 · border`); the result must not depend on `V`.
    static func interior<V: SIMD>(_: V.Type, _ src: UnsafePointer<Float>,
                                  _ rgb: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
                                  width: Int, height: Int, pattern: BayerPattern) where V.Scalar == Float
}

extension RowBandDebayer {
    /// `mosaic` (of `pattern` at its top-left) as R, G, B planes.
    static func image(_ mosaic: Plane, pattern: BayerPattern) -> Image {
        // 16 lanes measured about 15 % less CPU than 8 on AVX-512 (docs/performance.md).
        let inner = mosaic.width - 2 * border
        if inner >= 16 { return image(mosaic, pattern: pattern, lanes: SIMD16<Float>.self) }
        if inner >= 8 { return image(mosaic, pattern: pattern, lanes: SIMD8<Float>.self) }
        return image(mosaic, pattern: pattern, lanes: SIMD2<Float>.self)
    }

    /// As `image(_:pattern:)`, `V.scalarCount` columns at a time (which
    /// must be at most the mosaic's width − 2 · `border`); the result does not depend on `V`.
    static func image<V: SIMD>(_ mosaic: Plane, pattern: BayerPattern, lanes: V.Type) -> Image where V.Scalar == Float {
        Debayer.image(mosaic, pattern: pattern, bilinearBorder: border) { src, planes in
            interior(V.self, src, planes, width: mosaic.width, height: mosaic.height, pattern: pattern)
        }
    }
}
