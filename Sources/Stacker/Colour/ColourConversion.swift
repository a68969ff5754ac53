import Registration

/// Converting RGB pixels from one ICC profile into another with Little
/// CMS: relative colorimetric intent (the white point of the source maps
/// onto the target's, colours inside both gamuts keep their measured
/// value, colours outside the target's are clipped), no black-point
/// compensation. A nil profile means sRGB. Float samples are not clamped
/// (a matrix/shaper pair is evaluated unbounded); 8-bit samples go through
/// lcms2's 8-bit path, rounded.
public enum ColourConversion {
    /// `image` converted from `source` to `target`, or nil when it has
    /// not three planes or a profile cannot be used (see
    /// `ColourProfile.isReadableRGB`).
    public static func convert(_ image: Image, from source: ColourProfile?, to target: ColourProfile?) -> Image? {
        var planes = image.planes
        guard convert(&planes, from: source?.bytes, to: target?.bytes) else { return nil }
        return Image(width: image.width, height: image.height, planes: planes)
    }

    /// As `convert(_:from:to:)`, for 8-bit samples.
    public static func convert(_ image: ByteImage, from source: ColourProfile?, to target: ColourProfile?) -> ByteImage? {
        var planes = image.planes
        guard convert(&planes, from: source?.bytes, to: target?.bytes) else { return nil }
        return ByteImage(width: image.width, height: image.height, planes: planes)
    }

    /// Converts three float planes in place (uniquely held planes are not
    /// copied); false, with the planes untouched, when there are not three
    /// or a profile cannot be used.
    static func convert(_ planes: inout [Plane], from source: [UInt8]?, to target: [UInt8]?) -> Bool {
        guard planes.count == 3, let transform = LittleCMS.Transform(from: source, to: target, floats: true) else {
            return false
        }
        transform.apply(&planes)
        return true
    }

    /// As `convert(_:from:to:)` for three 8-bit planes in place.
    static func convert(_ planes: inout [BytePlane], from source: [UInt8]?, to target: [UInt8]?) -> Bool {
        guard planes.count == 3, let transform = LittleCMS.Transform(from: source, to: target, floats: false) else {
            return false
        }
        transform.apply(&planes)
        return true
    }
}
