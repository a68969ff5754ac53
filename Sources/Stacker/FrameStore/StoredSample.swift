/// An unsigned integer type the frame store keeps samples in: `UInt8` for
/// 8-bit bursts, `UInt16` otherwise. A value `v` in 0…1 is kept as
/// `round(v · max)` and reads back as `u / max`.
protocol StoredSample: StoreElement, FixedWidthInteger, UnsignedInteger, SIMDScalar, Codable {
    /// Sixteen consecutive samples from `p` widened to `UInt16` (the first
    /// `lanes` of them; the rest 0), without reading past `p + lanes`.
    /// Implemented per type: generic SIMD integer code runs lane by lane.
    static func load16(_ p: UnsafePointer<Self>, lanes: Int) -> SIMD16<UInt16>
}

extension UInt8: StoredSample {
    @inline(__always)
    static func load16(_ p: UnsafePointer<UInt8>, lanes: Int) -> SIMD16<UInt16> {
        SIMD16<UInt16>(truncatingIfNeeded: StripJob.load16(p, lanes))
    }
}

extension UInt16: StoredSample {
    @inline(__always)
    static func load16(_ p: UnsafePointer<UInt16>, lanes: Int) -> SIMD16<UInt16> {
        StripJob.load16(p, lanes)
    }
}

extension StoredSample {
    /// `max` as a float: the quantisation scale (255 or 65535).
    @inline(__always)
    static var levels: Float { Float(Self.max) }

    /// The read-back scale `1 / max`.
    @inline(__always)
    static var scale: Float { 1 / levels }

    @inline(__always)
    var floatValue: Float { Float(self) }

    @inline(__always)
    static func load8(_ p: UnsafePointer<Self>, lanes: Int) -> SIMD8<Float> {
        SIMD8<Float>(StripJob.load8(p, lanes))
    }

    /// `quantize(_:into:count:)`.
    @inline(__always)
    static func store(_ source: UnsafePointer<Float>, into destination: UnsafeMutablePointer<Self>, count: Int) {
        quantize(source, into: destination, count: count)
    }

    /// `round(clamp(v, 0, 1) · max)`, halves rounded up, NaN → 0.
    @inline(__always)
    static func quantize(_ v: Float) -> Self {
        let c: Float = v > 0 ? (v < 1 ? v : 1) : 0
        return Self(c * levels + 0.5)
    }

    /// Quantises `count` floats from `source` into `destination`, eight at a
    /// time, with exactly `quantize`'s result for every value.
    ///
    /// The scalar `Self(Float)` conversion checks its range and does not
    /// vectorise, so the
    /// floor of `y = c · max + 0.5` (0 ≤ y < 2²²) is taken instead by adding
    /// and subtracting 1.5 · 2²³, which rounds to the nearest integer, and
    /// stepping down where that rounded up; the integer is then the low
    /// bits of `floor(y) + 1.5 · 2²³`.
    static func quantize(_ source: UnsafePointer<Float>, into destination: UnsafeMutablePointer<Self>,
                         count: Int) {
        let magic = SIMD8<Float>(repeating: 12_582_912)
        let top = SIMD8<Float>(repeating: levels)
        let from = UnsafeRawPointer(source)
        let to = UnsafeMutableRawPointer(destination)
        var i = 0
        while i + 8 <= count {
            let v = from.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            // Clamp to 0…1 with NaN → 0: comparisons with NaN are false.
            var c = SIMD8<Float>(repeating: 0).replacing(with: v, where: v .> 0)
            c = c.replacing(with: 1, where: c .> 1)
            let y = c * top + 0.5
            var r = (y + magic) - magic
            r = r.replacing(with: r - 1, where: r .> y)
            let bits = unsafeBitCast(r + magic, to: SIMD8<UInt32>.self)
            to.storeBytes(of: SIMD8<Self>(truncatingIfNeeded: bits), toByteOffset: i * MemoryLayout<Self>.stride,
                          as: SIMD8<Self>.self)
            i += 8
        }
        while i < count {
            destination[i] = quantize(source[i])
            i += 1
        }
    }
}
