public import Registration

/// 8-bit samples, as an 8-bit JPEG holds them: the form a frame keeps from
/// decode to warp (a quarter of the memory of an `Image`, and no conversion
/// pass). Sample `v` stands for the `Image` value `v / 255`.
public typealias ByteImage = PlanarImage<UInt8>

extension PlanarImage where Sample == UInt8 {
    /// The image as floats, `v / 255`: what a float decode gives.
    public var floats: Image { Image(width: width, height: height, planes: planes.map(\.floats)) }

    /// `floats.luma(downsampledBy: factor)` to float rounding (the same
    /// bits for a gray image), without the float image.
    public func luma(downsampledBy factor: Int) -> (luma: Plane, small: Plane) {
        guard planes.count >= 3 else {
            let luma = planes[0].floats
            return (luma, luma.downsampled(by: factor))
        }
        return Image.rec601Luma(planes[0].pixels, planes[1].pixels, planes[2].pixels, width: width, height: height,
                                downsampledBy: factor)
    }
}
