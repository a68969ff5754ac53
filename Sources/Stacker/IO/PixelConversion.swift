import Registration

/// Conversions between interleaved integer samples (as codecs use them) and
/// planar `Float` 0…1 planes. Simple loops over unsafe buffers so the
/// optimiser vectorises them.
enum PixelConversion {
    /// Planes from interleaved 8-bit samples: plane c, pixel i = `src[i * channels + c] / 255`.
    static func planes(from src: UnsafeBufferPointer<UInt8>, width: Int, height: Int, channels: Int) -> [Plane] {
        let n = width * height
        precondition(src.count >= n * channels)
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

    /// Interleaved 8-bit samples from `image`: round(clamp(v) · 255).
    static func interleaved8(_ image: Image) -> [UInt8] {
        let n = image.pixelCount, ch = image.channels
        return [UInt8](unsafeUninitializedCapacity: n * ch) { dst, count in
            for c in 0..<ch {
                image.planes[c].pixels.withUnsafeBufferPointer { src in
                    for i in 0..<n { dst[i &* ch &+ c] = UInt8(clamp(src[i]) * 255 + 0.5) }
                }
            }
            count = n * ch
        }
    }

    /// Interleaved 16-bit samples (native byte order): round(clamp(v) · 65535).
    static func interleaved16(_ image: Image) -> [UInt16] {
        let n = image.pixelCount, ch = image.channels
        return [UInt16](unsafeUninitializedCapacity: n * ch) { dst, count in
            for c in 0..<ch {
                image.planes[c].pixels.withUnsafeBufferPointer { src in
                    for i in 0..<n { dst[i &* ch &+ c] = UInt16(clamp(src[i]) * 65535 + 0.5) }
                }
            }
            count = n * ch
        }
    }
}
