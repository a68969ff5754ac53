/// A single-channel image of `Float` samples, stored row-major.
///
/// Coordinates: pixel centres at integer coordinates, origin top-left,
/// x to the right, y down. `pixels[y * width + x]` is the sample at `(x, y)`.
/// Values are unitless; Stacker uses 0…1 (file value / maximum).
public struct Plane: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Row-major samples, `width * height` of them.
    public var pixels: [Float]

    /// A plane filled with `value`.
    public init(width: Int, height: Int, repeating value: Float = 0) {
        precondition(width >= 0 && height >= 0, "Plane size \(width)×\(height) is negative")
        self.width = width
        self.height = height
        self.pixels = [Float](repeating: value, count: width * height)
    }

    /// A plane over existing samples; `pixels.count` must be `width * height`.
    public init(width: Int, height: Int, pixels: [Float]) {
        precondition(pixels.count == width * height,
                     "Plane \(width)×\(height) needs \(width * height) samples, got \(pixels.count)")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Number of samples.
    @inlinable public var count: Int { width * height }

    /// The sample at column `x`, row `y` (both must be in range).
    @inlinable public subscript(x: Int, y: Int) -> Float {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }
}
