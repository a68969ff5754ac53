/// A single-channel plane of `PlaneSample`s, row-major: what the
/// translation registrar reads a frame's luma from. A JPEG's Y plane is
/// registered as the bytes it was decoded to, so no 48 MB float copy of a
/// 12 MP frame is made for it: the search reads its shrunk copy, the direct
/// refinement a few bands of rows, with `PlaneSample.unit` folded into its
/// weights.
package protocol SamplePlane: Sendable {
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
    /// The plane shrunk by an integer `factor` with a box average, as
    /// floats (see `Plane.downsampled(by:)`); `factor <= 1` gives `floatPlane`.
    func shrunk(by factor: Int) -> Plane
}

extension PixelPlane: SamplePlane where Sample: PlaneSample {
    package func withSampleBuffer<R>(_ body: (UnsafeBufferPointer<Sample>) throws -> R) rethrows -> R {
        try pixels.withUnsafeBufferPointer(body)
    }

    /// The plane as float values (the plane itself for `Plane`).
    package var floatPlane: Plane { Sample.floatPlane(of: self) }

    /// The plane shrunk by `factor` (box average), as float values.
    package func shrunk(by factor: Int) -> Plane { Sample.downsample(self, by: factor) }
}

extension PixelPlane where Sample == UInt8 {
    /// The plane shrunk by `factor` (box average of `factor × factor`
    /// blocks, the remainder rows and columns dropped), as float values;
    /// the same values `floats.downsampled(by:)` gives, without the float copy.
    public func downsampled(by factor: Int) -> Plane {
        guard factor > 1 else { return floats }
        let w = width, ow = width / factor, oh = height / factor
        guard ow > 0, oh > 0 else { return Plane(width: ow, height: oh) }
        let used = ow * factor
        let scale = UInt8.unit / Float(factor * factor)
        var columns = [UInt32](repeating: 0, count: used)
        let out = [Float](unsafeUninitializedCapacity: ow * oh) { dst, initialised in
            pixels.withUnsafeBufferPointer { src in
                columns.withUnsafeMutableBufferPointer { col in
                    guard let s = src.baseAddress, let c = col.baseAddress, let d = dst.baseAddress else { return }
                    for oy in 0..<oh {
                        let first = s + oy * factor * w
                        for i in 0..<used { c[i] = UInt32(first[i]) }
                        for dy in 1..<factor {
                            let row = first + dy * w
                            for i in 0..<used { c[i] &+= UInt32(row[i]) }
                        }
                        let o = d + oy * ow
                        if factor == 8 {           // 12 MP frames: one vector per group
                            for g in 0..<ow {
                                let group = UnsafeRawPointer(c + 8 &* g).loadUnaligned(as: SIMD8<UInt32>.self)
                                o[g] = Float(group.wrappedSum()) * scale
                            }
                        } else if factor == 4 {    // the homography's 1000 px level of a 12 MP frame
                            for g in 0..<ow {
                                let group = UnsafeRawPointer(c + 4 &* g).loadUnaligned(as: SIMD4<UInt32>.self)
                                o[g] = Float(group.wrappedSum()) * scale
                            }
                        } else {
                            for g in 0..<ow {
                                let group = c + g &* factor
                                var t: UInt32 = 0, k = 0
                                while k < factor { t &+= group[k]; k &+= 1 }
                                o[g] = Float(t) * scale
                            }
                        }
                    }
                }
            }
            initialised = ow * oh
        }
        return Plane(width: ow, height: oh, pixels: out)
    }
}

extension SamplePlane {
    /// The sub-plane `[x, x + width) × [y, y + height)` as floats; samples
    /// outside `self` take the nearest edge value (clamp). An empty `self`
    /// gives zeros.
    package func cropped(x: Int, y: Int, width cw: Int, height ch: Int) -> Plane {
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
}
