public import Registration

/// A planar image of 8-bit samples, as an 8-bit JPEG holds them: the form a
/// frame keeps from decode to warp (a quarter of the memory of `Image`, and
/// no conversion pass). Sample `v` stands for the `Image` value `v / 255`.
public struct ByteImage: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// One plane per channel (1 = gray, 3 = RGB).
    public var planes: [BytePlane]

    /// An image over existing planes, which must all be `width × height`.
    public init(width: Int, height: Int, planes: [BytePlane]) {
        Image.requireSize(width, height, of: planes.map { ($0.width, $0.height) })
        self.width = width
        self.height = height
        self.planes = planes
    }

    /// Number of channels (1 or 3).
    public var channels: Int { planes.count }

    /// The image as floats, `v / 255`: what a float decode gives.
    public var floats: Image { Image(width: width, height: height, planes: planes.map(\.floats)) }

    /// `floats.luma(downsampledBy: factor)` to float rounding (the same
    /// bits for a gray image), without the float image.
    public func luma(downsampledBy factor: Int) -> (luma: Plane, small: Plane) {
        guard planes.count >= 3 else {
            let luma = planes[0].floats
            return (luma, luma.downsampled(by: factor))
        }
        return Image.rec601Luma(planes[0].samples, planes[1].samples, planes[2].samples, width: width, height: height,
                                downsampledBy: factor)
    }
}
