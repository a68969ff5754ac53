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

    /// `quantize(_:into:count:)` of `gain · v + offset` with `normalising`
    /// (the product and the sum rounded as `Normalization.apply` rounds them).
    static func store(_ source: UnsafePointer<Float>, into destination: UnsafeMutablePointer<UInt8>, count: Int,
                      normalising k: (gain: Float, offset: Float)?) {
        StoreKernels.quantize(source, into: destination, count: count, normalising: k)
    }
}

extension UInt16: StoredSample {
    @inline(__always)
    static func load16(_ p: UnsafePointer<UInt16>, lanes: Int) -> SIMD16<UInt16> {
        StripJob.load16(p, lanes)
    }

    /// As for `UInt8`, into 16-bit samples.
    static func store(_ source: UnsafePointer<Float>, into destination: UnsafeMutablePointer<UInt16>, count: Int,
                      normalising k: (gain: Float, offset: Float)?) {
        StoreKernels.quantize(source, into: destination, count: count, normalising: k)
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

    /// `round(clamp(v, 0, 1) · max)`, halves rounded up, NaN → 0.
    @inline(__always)
    static func quantize(_ v: Float) -> Self {
        let c: Float = v > 0 ? (v < 1 ? v : 1) : 0
        return Self(c * levels + 0.5)
    }

    /// Quantises `count` floats from `source` into `destination` with
    /// exactly `quantize`'s result for every value (`StoreKernels`, 16 at a
    /// time).
    static func quantize(_ source: UnsafePointer<Float>, into destination: UnsafeMutablePointer<Self>,
                         count: Int) {
        store(source, into: destination, count: count, normalising: nil)
    }
}
