/// A single-channel plane of `PlaneSample`s, row-major: what the
/// translation registrar reads a frame's luma from. A JPEG's Y plane is
/// registered as the bytes it was decoded to, so no 48 MB float copy of a
/// 12 MP frame is made for it: the search reads its shrunk copy, the direct
/// refinement a few bands of rows, with `PlaneSample.unit` folded into its
/// weights.
public protocol SamplePlane: Sendable {
    /// The sample type (`Float`, or `UInt8` standing for `v / 255`).
    associatedtype Sample: PlaneSample
    /// Width in pixels.
    var width: Int { get }
    /// Height in pixels.
    var height: Int { get }
    /// Calls `body` with the `width * height` row-major samples.
    func withSampleBuffer<R>(_ body: (UnsafeBufferPointer<Sample>) throws -> R) rethrows -> R
    /// The plane as floats (the values the samples stand for).
    var floatPlane: Plane { get }
}

extension Plane: SamplePlane {
    /// The pixels.
    public func withSampleBuffer<R>(_ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        try pixels.withUnsafeBufferPointer(body)
    }

    /// The plane itself.
    public var floatPlane: Plane { self }
}

extension BytePlane: SamplePlane {
    /// The samples.
    public func withSampleBuffer<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try samples.withUnsafeBufferPointer(body)
    }

    /// `floats`.
    public var floatPlane: Plane { floats }
}

extension SamplePlane {
    /// The sub-plane `[x, x + width) × [y, y + height)` as floats; samples
    /// outside `self` take the nearest edge value (clamp). An empty `self`
    /// gives zeros.
    public func cropped(x: Int, y: Int, width cw: Int, height ch: Int) -> Plane {
        var out = Plane(width: max(0, cw), height: max(0, ch))
        guard width > 0, height > 0, cw > 0, ch > 0 else { return out }
        let w = width, h = height, unit = Sample.unit
        withSampleBuffer { src in
            out.pixels.withUnsafeMutableBufferPointer { dst in
                for r in 0..<ch {
                    let sy = Swift.min(Swift.max(y + r, 0), h - 1) * w
                    for c in 0..<cw {
                        dst[r * cw + c] = src[sy + Swift.min(Swift.max(x + c, 0), w - 1)].float * unit
                    }
                }
            }
        }
        return out
    }

    /// The plane shrunk by an integer `factor` with a box average, as
    /// `Plane.downsampled(by:)` gives for the float values `v · unit`
    /// (the same floats for a `Plane`), reading each sample once: `factor`
    /// rows at a time are converted into a small buffer and shrunk while
    /// it is in cache. `factor <= 1` gives `floatPlane`. Inlinable, so a
    /// caller's concrete sample type gets its own specialised loop.
    @inlinable
    public func downsampled(by factor: Int) -> Plane {
        guard factor > 1 else { return floatPlane }
        let w = width, ow = width / factor, oh = height / factor
        guard ow > 0, oh > 0 else { return Plane(width: ow, height: oh) }
        let unit = Sample.unit
        var band = [Float](repeating: 0, count: factor * w)
        var accumulator = [Float](repeating: 0, count: ow * factor)
        let out = [Float](unsafeUninitializedCapacity: ow * oh) { dst, initialised in
            withSampleBuffer { src in
                band.withUnsafeMutableBufferPointer { b in
                    accumulator.withUnsafeMutableBufferPointer { acc in
                        guard let s = src.baseAddress, let bp = b.baseAddress, let a = acc.baseAddress,
                              let d = dst.baseAddress else { return }
                        for oy in 0..<oh {
                            let first = s + oy * factor * w
                            for i in 0..<(factor * w) { bp[i] = first[i].float * unit }
                            Plane.downsampleBand(bp, width: w, factor: factor, accumulator: a, into: d + oy * ow)
                        }
                    }
                }
            }
            initialised = ow * oh
        }
        return Plane(width: ow, height: oh, pixels: out)
    }
}
