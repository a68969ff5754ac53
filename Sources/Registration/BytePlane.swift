/// 8-bit samples, `v` standing for the `Plane` value `v / 255`. Frames read
/// from 8-bit files stay in this form until they are warped: a quarter of
/// the memory of a `Plane`, and no pass that turns every sample into a float
/// first.
public typealias BytePlane = PixelPlane<UInt8>

extension PixelPlane where Sample == UInt8 {
    /// The plane as floats, each sample `v / 255` (a division, so the values
    /// are exactly those a float decode of the same file gives).
    public var floats: Plane {
        let n = count
        let px = [Float](unsafeUninitializedCapacity: n) { dst, initialised in
            pixels.withUnsafeBufferPointer { src in
                if let s = src.baseAddress, let d = dst.baseAddress { UInt8.convert(s, count: n, into: d) }
            }
            initialised = n
        }
        return Plane(width: width, height: height, pixels: px)
    }
}

/// A sample type planes hold: `Float` as it is, `UInt8` standing for
/// `v / 255`. Kernels generic over it fold `unit` into their weights, so
/// 8-bit samples are never converted to floats in a pass of their own.
@usableFromInline
package protocol PlaneSample: BitwiseCopyable, Sendable, Equatable, ExpressibleByIntegerLiteral {
    /// The factor that turns `float` into the plane's value (1 for `Float`,
    /// 1/255 for `UInt8`).
    static var unit: Float { get }
    /// The sample as a float, unscaled.
    var float: Float { get }
    /// `out[i]` = sample `i` of `source` as the plane's value, exactly (for
    /// `UInt8` a division by 255, as `BytePlane.floats`).
    static func convert(_ source: UnsafePointer<Self>, count: Int, into out: UnsafeMutablePointer<Float>)
    /// `plane` as float values.
    static func floatPlane(of plane: PixelPlane<Self>) -> Plane
    /// `plane` shrunk by `factor` with a box average, as float values.
    static func downsample(_ plane: PixelPlane<Self>, by factor: Int) -> Plane
}

extension Float: PlaneSample {
    @usableFromInline package static func floatPlane(of plane: Plane) -> Plane { plane }
    @usableFromInline package static func downsample(_ plane: Plane, by factor: Int) -> Plane { plane.downsampled(by: factor) }
    /// 1: a float sample is the plane's value.
    @inlinable package static var unit: Float { 1 }
    /// The sample itself.
    @inlinable package var float: Float { self }
    /// A copy.
    @inlinable
    package static func convert(_ source: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Float>) {
        out.update(from: source, count: count)
    }
}

extension UInt8: PlaneSample {
    @usableFromInline package static func floatPlane(of plane: BytePlane) -> Plane { plane.floats }
    @usableFromInline package static func downsample(_ plane: BytePlane, by factor: Int) -> Plane { plane.downsampled(by: factor) }
    /// 1/255: an 8-bit sample `v` stands for `v / 255`.
    @inlinable package static var unit: Float { 1 / 255 }
    /// `Float(self)`.
    @inlinable package var float: Float { Float(self) }
    /// `Float(v) / 255` per sample.
    @inlinable
    package static func convert(_ source: UnsafePointer<UInt8>, count: Int, into out: UnsafeMutablePointer<Float>) {
        for i in 0..<count { out[i] = Float(source[i]) / 255 }
    }
}
