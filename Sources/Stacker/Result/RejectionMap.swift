public import Registration

/// Per output pixel, the fraction of the covered samples that the
/// rejection rejected below (`low`) and above (`high`) the centre, over all
/// channels together: with n covering frames and c channels, `low` is
/// (samples rejected low) / (n · c). 0 where no frame covers a pixel. Users
/// look at it to see that a satellite trail or hot pixels went.
public struct RejectionMap: Sendable {
    /// Fraction rejected low, per pixel, 0…1.
    public var low: Plane
    /// Fraction rejected high, per pixel, 0…1.
    public var high: Plane

    /// A map of the two planes (same size).
    public init(low: Plane, high: Plane) {
        precondition(low.width == high.width && low.height == high.height,
                     "RejectionMap: planes \(low.width)×\(low.height) and \(high.width)×\(high.height)")
        self.low = low
        self.high = high
    }

    /// The map as a 3-channel image: R (plane 1) the low fraction, G (plane
    /// 2) the high fraction, B (plane 3) 0.
    public var image: Image {
        Image(width: low.width, height: low.height,
              planes: [low, high, Plane(width: low.width, height: low.height)])
    }

    /// Writes `image` atomically to `path`: 16-bit PNG or TIFF, a 32-bit
    /// float FITS cube of three planes (the third 0). The extension picks
    /// the format.
    /// - Throws: `StackerError.invalidInput` for a JPEG or unknown
    ///   extension (a JPEG's 8 bits and its compression would blur the
    ///   counts), `StackerError.writeFailed`; both name `path`.
    public func write(to path: some FilePathConvertible) throws {
        let path = path.filePath
        guard let format = ImageFormat.fromExtension(of: path), format != .jpeg else {
            throw StackerError.invalidInput(path: path.description,
                                            reason: "a rejection map is written as .png, .tif, .tiff, .fits, .fit or .fts")
        }
        try ImageFile.write(image, to: path, options: EncodeOptions(bitDepth: format == .fits ? 32 : 16))
    }
}
