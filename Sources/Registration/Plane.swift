/// A single-channel image, stored row-major, over one sample type:
/// `Plane` holds `Float`s, `BytePlane` 8-bit samples.
///
/// Coordinates: pixel centres at integer coordinates, origin top-left,
/// x to the right, y down. `pixels[y * width + x]` is the sample at `(x, y)`.
/// Float values are unitless (Stacker uses 0…1, file value / maximum); an
/// 8-bit sample `v` stands for the float value `v / 255`.
public struct PixelPlane<Sample: BitwiseCopyable & Sendable & Equatable & ExpressibleByIntegerLiteral>: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Row-major samples, `width * height` of them.
    public var pixels: [Sample]

    /// A plane filled with `value`.
    public init(width: Int, height: Int, repeating value: Sample = 0) {
        precondition(width >= 0 && height >= 0, "Plane size \(width)×\(height) is negative")
        self.width = width
        self.height = height
        self.pixels = [Sample](repeating: value, count: width * height)
    }

    /// A plane over existing samples; `pixels.count` must be `width * height`.
    public init(width: Int, height: Int, pixels: [Sample]) {
        precondition(width >= 0 && height >= 0, "Plane size \(width)×\(height) is negative")
        precondition(pixels.count == width * height,
                     "Plane \(width)×\(height) needs \(width * height) samples, got \(pixels.count)")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Number of samples.
    @inlinable public var count: Int { width * height }

    /// The sample at column `x`, row `y` (both must be in range).
    @inlinable public subscript(x: Int, y: Int) -> Sample {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }
}

/// Float samples.
public typealias Plane = PixelPlane<Float>

extension Array where Element == [Float] {
    /// `arrays` arrays of `count` floats each, left uninitialised for
    /// `fill`, which gets their base addresses and must write every element
    /// of each before it returns (no zero fill, no copy).
    package init(uninitialized arrays: Int, count: Int, fill: ([UnsafeMutablePointer<Float>]) -> Void) {
        func nest(_ pointers: [UnsafeMutablePointer<Float>]) -> [[Float]] {
            guard pointers.count < arrays else { fill(pointers); return [] }
            var rest: [[Float]] = []
            let array = [Float](unsafeUninitializedCapacity: Swift.max(1, count)) { buffer, initialised in
                rest = nest(pointers + [buffer.baseAddress!])
                initialised = count
            }
            return [array] + rest
        }
        self = nest([])
    }

}

extension Array {
    /// Calls `body` with the base address of every array, in order (each
    /// must be non-empty); the pointers are valid only inside `body`.
    package func withBaseAddresses<S, R>(_ body: ([UnsafePointer<S>]) -> R) -> R where Element == [S] {
        func step(_ i: Int, _ addresses: [UnsafePointer<S>]) -> R {
            guard i < count else { return body(addresses) }
            return self[i].withUnsafeBufferPointer { step(i + 1, addresses + [$0.baseAddress!]) }
        }
        return step(0, [])
    }
}
