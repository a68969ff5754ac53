/// What a camera raw file says about its capture and its colour, as LibRaw
/// reads it (`RAWCodec`). Carried with the decoded mosaic; the pipeline does
/// not apply the white balance or the matrix yet (see docs/architecture.md).
public struct RAWMetadata: Sendable, Equatable {
    /// The camera's maker and model, as LibRaw names them ("Canon", "EOS 5D Mark IV").
    public var make: String
    /// The camera model.
    public var model: String
    /// ISO speed; 0 when unknown.
    public var iso: Float
    /// Exposure time in seconds; 0 when unknown.
    public var shutter: Float
    /// Capture time in seconds since 1970-01-01 (as the camera's clock
    /// says, time zone unknown); 0 when unknown.
    public var timestamp: Int
    /// As-shot white balance: the multipliers for R, G, B, normalised to
    /// green = 1 (the camera's `cam_mul`); nil when the file has none.
    public var whiteBalance: [Float]?
    /// Camera colour (white-balanced) to linear sRGB primaries, a 3 × 3
    /// row-major matrix (LibRaw's `rgb_cam`: rows R, G, B of the output).
    public var cameraToSRGB: [Float]
    /// True when the image was demosaiced by LibRaw itself (X-Trans and
    /// other sensors that are not a 2 × 2 RGB Bayer mosaic): then it is
    /// linear sRGB with the as-shot white balance already applied, and no
    /// CFA pattern is carried.
    public var demosaicedByLibRaw: Bool

    /// A record of the given facts.
    public init(make: String, model: String, iso: Float, shutter: Float, timestamp: Int,
                whiteBalance: [Float]?, cameraToSRGB: [Float], demosaicedByLibRaw: Bool) {
        self.make = make
        self.model = model
        self.iso = iso
        self.shutter = shutter
        self.timestamp = timestamp
        self.whiteBalance = whiteBalance
        self.cameraToSRGB = cameraToSRGB
        self.demosaicedByLibRaw = demosaicedByLibRaw
    }
}
