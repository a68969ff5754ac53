import Registration

/// Conversions between interleaved integer samples (as codecs use them) and
/// planar `Float` 0…1 planes. Simple loops over unsafe buffers so the
/// optimiser vectorises them.
enum PixelConversion {
    /// Planes from interleaved 8-bit samples: plane c, pixel i = `src[i * channels + c] / 255`.
    static func planes(from src: UnsafeBufferPointer<UInt8>, width: Int, height: Int, channels: Int) -> [Plane] {
        let n = width * height
        precondition(src.count >= n * channels)
        if channels == 3, let s = src.baseAddress {
            // One pass over the interleaved samples writing all three planes
            // (the compiler turns it into vector loads and shuffles); three
            // strided passes read the 36 MB of a 12 MP frame three times.
            var g = [Float](), b = [Float]()
            let r = [Float](unsafeUninitializedCapacity: n) { rp, rc in
                g = [Float](unsafeUninitializedCapacity: n) { gp, gc in
                    b = [Float](unsafeUninitializedCapacity: n) { bp, bc in
                        deinterleave3(s, rp.baseAddress!, gp.baseAddress!, bp.baseAddress!, count: n)
                        bc = n
                    }
                    gc = n
                }
                rc = n
            }
            return [r, g, b].map { Plane(width: width, height: height, pixels: $0) }
        }
        return (0..<channels).map { c in
            let px = [Float](unsafeUninitializedCapacity: n) { dst, count in
                if channels == 1 {
                    for i in 0..<n { dst[i] = Float(src[i]) / 255 }
                } else {
                    for i in 0..<n { dst[i] = Float(src[i &* channels &+ c]) / 255 }
                }
                count = n
            }
            return Plane(width: width, height: height, pixels: px)
        }
    }

    /// Three 8-bit planes (R, G, B) from interleaved RGB samples, in one pass.
    static func bytePlanes(from src: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> [BytePlane] {
        let n = width * height
        precondition(src.count >= n * 3)
        guard let s = src.baseAddress else { return [] }
        var g = [UInt8](), b = [UInt8]()
        let r = [UInt8](unsafeUninitializedCapacity: n) { rp, rc in
            g = [UInt8](unsafeUninitializedCapacity: n) { gp, gc in
                b = [UInt8](unsafeUninitializedCapacity: n) { bp, bc in
                    if let r = rp.baseAddress, let g = gp.baseAddress, let b = bp.baseAddress {
                        for i in 0..<n {
                            let p = s + 3 &* i
                            r[i] = p[0]
                            g[i] = p[1]
                            b[i] = p[2]
                        }
                    }
                    bc = n
                }
                gc = n
            }
            rc = n
        }
        return [r, g, b].map { BytePlane(width: width, height: height, pixels: $0) }
    }

    /// `r[i], g[i], b[i] = s[3i], s[3i+1], s[3i+2]` divided by 255.
    private static func deinterleave3(_ s: UnsafePointer<UInt8>, _ r: UnsafeMutablePointer<Float>,
                                      _ g: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>, count n: Int) {
        for i in 0..<n {
            let p = s + 3 &* i
            r[i] = Float(p[0]) / 255
            g[i] = Float(p[1]) / 255
            b[i] = Float(p[2]) / 255
        }
    }

    /// Planes from interleaved 16-bit samples (native byte order): value / 65535.
    static func planes(from src: UnsafeBufferPointer<UInt16>, width: Int, height: Int, channels: Int) -> [Plane] {
        let n = width * height
        precondition(src.count >= n * channels)
        return (0..<channels).map { c in
            let px = [Float](unsafeUninitializedCapacity: n) { dst, count in
                for i in 0..<n { dst[i] = Float(src[i &* channels &+ c]) / 65535 }
                count = n
            }
            return Plane(width: width, height: height, pixels: px)
        }
    }

    /// A sample clamped to 0…1; NaN becomes 0.
    @inline(__always)
    static func clamp(_ v: Float) -> Float { v > 0 ? (v < 1 ? v : 1) : 0 }

    /// Interleaved 8-bit samples from `image` (or its rows `rows`):
    /// round(clamp(v) · 255). Each plane is quantised a chunk at a time with
    /// the store's vector `quantize` (the same values as `to8`; the scalar
    /// conversion checks its range and does not vectorise), then the chunks
    /// are interleaved.
    static func interleaved8(_ image: Image, rows: Range<Int>? = nil) -> [UInt8] {
        let rows = rows ?? 0..<image.height
        let first = rows.lowerBound * image.width
        let n = rows.count * image.width, ch = image.channels
        let chunk = 4096
        var scratch = [UInt8](repeating: 0, count: chunk * ch)
        return [UInt8](unsafeUninitializedCapacity: n * ch) { dst, count in
            image.planes.map(\.pixels).withBaseAddresses { sources in
                scratch.withUnsafeMutableBufferPointer { sp in
                    guard let q = sp.baseAddress, let d = dst.baseAddress else { return }
                    var start = 0
                    while start < n {
                        let m = min(chunk, n - start)
                        for c in 0..<ch { UInt8.quantize(sources[c] + first + start, into: q + c * chunk, count: m) }
                        let o = d + start * ch
                        if ch == 3 {
                            let (r, g, b) = (q, q + chunk, q + 2 * chunk)
                            for i in 0..<m {
                                o[3 &* i] = r[i]
                                o[3 &* i &+ 1] = g[i]
                                o[3 &* i &+ 2] = b[i]
                            }
                        } else {
                            for c in 0..<ch { for i in 0..<m { o[i &* ch &+ c] = q[c * chunk + i] } }
                        }
                        start += m
                    }
                }
            }
            count = n * ch
        }
    }

    /// Interleaved 16-bit samples (native byte order): round(clamp(v) · 65535).
    static func interleaved16(_ image: Image) -> [UInt16] { interleaved(image, to16) }

    /// Interleaved samples of `image`, each plane's value through `convert`.
    @inline(__always)
    static func interleaved<T>(_ image: Image, _ convert: (Float) -> T) -> [T] {
        let n = image.pixelCount, ch = image.channels
        return [T](unsafeUninitializedCapacity: n * ch) { dst, count in
            for c in 0..<ch {
                image.planes[c].pixels.withUnsafeBufferPointer { src in
                    for i in 0..<n { dst.initializeElement(at: i &* ch &+ c, to: convert(src[i])) }
                }
            }
            count = n * ch
        }
    }

    /// A plane from `width × height` float samples in row order, each
    /// divided by `divisor` (a division, not a multiplication by the
    /// inverse, so integer values land on exactly the floats the 8- and
    /// 16-bit paths give); NaN and ±infinity become 0. `bottomUp` reads the
    /// rows in reverse (the last stored row becomes row 0), for FITS.
    static func plane(from src: UnsafeBufferPointer<Float>, width: Int, height: Int,
                      divisor: Float = 1, bottomUp: Bool = false) -> Plane {
        let n = width * height
        precondition(src.count >= n)
        let px = [Float](unsafeUninitializedCapacity: n) { dst, count in
            for y in 0..<height {
                let from = (bottomUp ? height - 1 - y : y) &* width, to = y &* width
                for x in 0..<width {
                    let v = src[from &+ x] / divisor
                    dst[to &+ x] = v.isFinite ? v : 0
                }
            }
            count = n
        }
        return Plane(width: width, height: height, pixels: px)
    }

    /// Interleaved float samples from `image`, values kept as they are
    /// (outside 0…1 too); NaN becomes 0.
    static func interleavedFloat(_ image: Image) -> [Float] { interleaved(image, toFloat) }

    /// The planes of `image` one after another with the rows in reverse
    /// order (bottom row first, as FITS stores them), each sample mapped by
    /// `convert`.
    static func planarBottomUp<T>(_ image: Image, _ convert: (Float) -> T) -> [T] {
        let w = image.width, h = image.height, n = image.pixelCount
        return [T](unsafeUninitializedCapacity: n * image.channels) { dst, count in
            for c in 0..<image.channels {
                image.planes[c].pixels.withUnsafeBufferPointer { src in
                    for y in 0..<h {
                        let from = (h - 1 - y) &* w, to = c &* n &+ y &* w
                        for x in 0..<w { dst.initializeElement(at: to &+ x, to: convert(src[from &+ x])) }
                    }
                }
            }
            count = n * image.channels
        }
    }

    /// One sample as 8 bits: round(clamp(v) · 255).
    @inline(__always)
    static func to8(_ v: Float) -> UInt8 { UInt8(clamp(v) * 255 + 0.5) }

    /// One sample as 16 bits: round(clamp(v) · 65535).
    @inline(__always)
    static func to16(_ v: Float) -> UInt16 { UInt16(clamp(v) * 65535 + 0.5) }

    /// One sample as a float to store: as it is, NaN as 0.
    @inline(__always)
    static func toFloat(_ v: Float) -> Float { v.isNaN ? 0 : v }
}
