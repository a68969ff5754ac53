/// A type the frame store keeps samples in: the integer `StoredSample`s
/// (`UInt8`, `UInt16`), quantised to 0…1, or `Float` for float and
/// calibrated data, kept as they are so values outside 0…1 survive.
protocol StoreElement: Sendable {
    /// What an element's `floatValue` is multiplied by to read back (1/255,
    /// 1/65535, or 1 for `Float`).
    static var scale: Float { get }
    /// The element as a float, before `scale`.
    var floatValue: Float { get }
    /// Stores `count` values from `source` into `destination` (quantised for
    /// integers; floats as they are, NaN as 0), each first taken to `gain ·
    /// v + offset` with `normalising` (`Normalization.apply`'s arithmetic).
    static func store(_ source: UnsafePointer<Float>, into destination: UnsafeMutablePointer<Self>, count: Int,
                      normalising: (gain: Float, offset: Float)?)
    /// Eight consecutive elements from `p` as floats, before `scale` (the
    /// first `lanes` of them; the rest 0), without reading past `p + lanes`.
    static func load8(_ p: UnsafePointer<Self>, lanes: Int) -> SIMD8<Float>
}

extension Float: StoreElement {
    @inline(__always)
    static var scale: Float { 1 }

    @inline(__always)
    var floatValue: Float { self }

    @inline(__always)
    static func load8(_ p: UnsafePointer<Float>, lanes: Int) -> SIMD8<Float> { StripJob.load8(p, lanes) }

    static func store(_ source: UnsafePointer<Float>, into destination: UnsafeMutablePointer<Float>, count: Int,
                      normalising k: (gain: Float, offset: Float)?) {
        for i in 0..<count {
            let v = k.map { $0.gain * source[i] + $0.offset } ?? source[i]
            destination[i] = v.isNaN ? 0 : v
        }
    }
}
