import Registration

/// Turning a stored image upright according to its EXIF orientation.
///
/// EXIF orientation values (TIFF 6.0 / EXIF 2.3, tag 0x0112) say where the
/// stored rows and columns belong in the upright picture:
/// 1 as stored; 2 mirrored left↔right; 3 rotated 180°; 4 mirrored top↔bottom;
/// 5 transposed (stored rows become columns, top-left corner fixed);
/// 6 needs a 90° clockwise turn; 7 transverse (transpose + 180°);
/// 8 needs a 90° counter-clockwise turn. 5…8 swap width and height.
enum Orientation {
    /// `image` turned upright for `orientation`; values outside 2…8 return it unchanged.
    static func apply(_ orientation: Int, to image: Image) -> Image {
        guard (2...8).contains(orientation) else { return image }
        let planes = image.planes.map { apply(orientation, to: $0) }
        return Image(width: planes[0].width, height: planes[0].height, planes: planes)
    }

    /// An 8-bit image turned upright, as `apply(_:to:)` turns its float planes.
    static func apply(_ orientation: Int, to image: ByteImage) -> ByteImage {
        guard (2...8).contains(orientation) else { return image }
        let planes = image.planes.map { apply(orientation, to: $0) }
        return ByteImage(width: planes[0].width, height: planes[0].height, planes: planes)
    }

    /// A Y, Cb, Cr image turned upright, each plane as `apply(_:to:)` turns
    /// a float plane (chroma shrunk equally on both axes stays centred).
    static func apply(_ orientation: Int, to image: YCbCrImage) -> YCbCrImage {
        guard (2...8).contains(orientation) else { return image }
        return YCbCrImage(luma: apply(orientation, to: image.luma), chroma: image.chroma.map { apply(orientation, to: $0) },
                          chromaFactor: image.chromaFactor)
    }

    /// One 8-bit plane turned upright.
    static func apply(_ orientation: Int, to plane: BytePlane) -> BytePlane {
        let (w, h, samples) = apply(orientation, to: plane.pixels, width: plane.width, height: plane.height)
        return BytePlane(width: w, height: h, pixels: samples)
    }

    /// One plane turned upright.
    static func apply(_ orientation: Int, to plane: Plane) -> Plane {
        let (w, h, pixels) = apply(orientation, to: plane.pixels, width: plane.width, height: plane.height)
        return Plane(width: w, height: h, pixels: pixels)
    }

    /// The samples of one `width × height` plane turned upright, and the
    /// upright size. Output pixel (x, y) takes stored pixel (sx, sy):
    /// 2: (w-1-x, y)  3: (w-1-x, h-1-y)  4: (x, h-1-y)
    /// 5: (y, x)      6: (y, h-1-x)      7: (w-1-y, h-1-x)  8: (w-1-y, x)
    static func apply<T: BitwiseCopyable>(_ orientation: Int, to samples: [T], width w: Int, height h: Int) -> (Int, Int, [T]) {
        let n = w * h
        let swaps = orientation >= 5
        let ow = swaps ? h : w, oh = swaps ? w : h
        let out = [T](unsafeUninitializedCapacity: n) { dst, count in
            samples.withUnsafeBufferPointer { src in
                switch orientation {
                case 2:
                    for y in 0..<h { for x in 0..<w { dst[y * w + x] = src[y * w + (w - 1 - x)] } }
                case 3:
                    for i in 0..<n { dst[i] = src[n - 1 - i] }
                case 4:
                    for y in 0..<h { for x in 0..<w { dst[y * w + x] = src[(h - 1 - y) * w + x] } }
                case 5...8:
                    // 5…8: walk the source row by row (sequential reads) and
                    // scatter into output columns, in tiles to stay in cache.
                    let tile = 32
                    for sy0 in stride(from: 0, to: h, by: tile) {
                        for sx0 in stride(from: 0, to: w, by: tile) {
                            for sy in sy0..<min(sy0 + tile, h) {
                                for sx in sx0..<min(sx0 + tile, w) {
                                    let x: Int, y: Int
                                    switch orientation {
                                    case 5: x = sy; y = sx
                                    case 6: x = h - 1 - sy; y = sx
                                    case 7: x = h - 1 - sy; y = w - 1 - sx
                                    default: x = sy; y = w - 1 - sx  // 8
                                    }
                                    dst[y * ow + x] = src[sy * w + sx]
                                }
                            }
                        }
                    }
                default:
                    for i in 0..<n { dst[i] = src[i] }
                }
            }
            count = n
        }
        return (ow, oh, out)
    }
}
