/// Bringing a frame into the reference's colour profile.
extension DecodedFrame {
    /// Converts a three-channel frame from `source` to `target` (nil: sRGB;
    /// both checked by the caller to be readable RGB profiles), keeping its
    /// form where lcms2 has one for it: 8-bit planes through an 8-bit
    /// transform, floats through a float one; a Y, Cb, Cr frame becomes
    /// float RGB. Gray frames are left alone. Returns whether the pixels
    /// were converted (false: untouched).
    mutating func convertColour(from source: [UInt8]?, to target: [UInt8]?) -> Bool {
        guard channels == 3 else { return false }
        switch pixels {
        case .bytes(var image):
            guard ColourConversion.convert(&image.planes, from: source, to: target) else { return false }
            pixels = .bytes(image)
        case .floats(var image):
            guard ColourConversion.convert(&image.planes, from: source, to: target) else { return false }
            pixels = .floats(image)
        case .ycbcr(let ycbcr):
            var image = ycbcr.rgb
            guard ColourConversion.convert(&image.planes, from: source, to: target) else { return false }
            pixels = .floats(image)
        }
        return true
    }
}
