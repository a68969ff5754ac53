/// A single-channel image of 8-bit samples, stored row-major like `Plane`.
///
/// Sample `v` stands for the `Plane` value `v / 255`. Frames read from 8-bit
/// files stay in this form until they are warped: a quarter of the memory of
/// a `Plane`, and no pass that turns every sample into a float first.
public struct BytePlane: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Row-major samples, `width * height` of them.
    public var samples: [UInt8]

    /// A plane over existing samples; `samples.count` must be `width * height`.
    public init(width: Int, height: Int, samples: [UInt8]) {
        precondition(width >= 0 && height >= 0, "BytePlane size \(width)×\(height) is negative")
        precondition(samples.count == width * height,
                     "BytePlane \(width)×\(height) needs \(width * height) samples, got \(samples.count)")
        self.width = width
        self.height = height
        self.samples = samples
    }

    /// Number of samples.
    @inlinable public var count: Int { width * height }

    /// The plane as floats, each sample `v / 255` (a division, so the values
    /// are exactly those a float decode of the same file gives).
    public var floats: Plane {
        let n = count
        let px = [Float](unsafeUninitializedCapacity: n) { dst, initialised in
            samples.withUnsafeBufferPointer { src in
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
package protocol PlaneSample: BitwiseCopyable {
    /// The factor that turns `float` into the plane's value (1 for `Float`,
    /// 1/255 for `UInt8`).
    static var unit: Float { get }
    /// The sample as a float, unscaled.
    var float: Float { get }
    /// `out[i]` = sample `i` of `source` as the plane's value, exactly (for
    /// `UInt8` a division by 255, as `BytePlane.floats`).
    static func convert(_ source: UnsafePointer<Self>, count: Int, into out: UnsafeMutablePointer<Float>)
}

extension Float: PlaneSample {
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
