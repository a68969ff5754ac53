/// A white point and three primaries in CIE 1931 xy.
public struct Chromaticities: Sendable, Equatable {
    /// The white point.
    public var white: (x: Double, y: Double)
    /// The red primary.
    public var red: (x: Double, y: Double)
    /// The green primary.
    public var green: (x: Double, y: Double)
    /// The blue primary.
    public var blue: (x: Double, y: Double)

    /// Chromaticities from their xy coordinates.
    public init(white: (x: Double, y: Double), red: (x: Double, y: Double),
                green: (x: Double, y: Double), blue: (x: Double, y: Double)) {
        self.white = white
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// sRGB and Rec. 709: D65 white, primaries (0.64, 0.33), (0.30, 0.60), (0.15, 0.06).
    public static let sRGB = Chromaticities(white: (0.3127, 0.3290), red: (0.64, 0.33),
                                            green: (0.30, 0.60), blue: (0.15, 0.06))
    /// Display P3 (DCI-P3 primaries, D65 white): (0.680, 0.320), (0.265, 0.690), (0.150, 0.060).
    public static let displayP3 = Chromaticities(white: (0.3127, 0.3290), red: (0.680, 0.320),
                                                 green: (0.265, 0.690), blue: (0.150, 0.060))
    /// Rec. 2020 (D65 white): (0.708, 0.292), (0.170, 0.797), (0.131, 0.046).
    public static let rec2020 = Chromaticities(white: (0.3127, 0.3290), red: (0.708, 0.292),
                                               green: (0.170, 0.797), blue: (0.131, 0.046))

    /// Equal when all four points are equal.
    public static func == (a: Chromaticities, b: Chromaticities) -> Bool {
        a.white == b.white && a.red == b.red && a.green == b.green && a.blue == b.blue
    }
}

/// How an RGB profile's stored values map to linear light.
public enum ToneCurve: Sendable, Equatable {
    /// The sRGB curve (IEC 61966-2-1), which Display P3 shares.
    case sRGB
    /// The BT.709 curve, which BT.2020 shares (its OETF, inverted).
    case rec709
    /// A pure power: linear = value^gamma (2.2 for a PNG whose gAMA is 0.45455).
    case gamma(Double)
}

/// An ICC profile, byte for byte: what files embed and outputs carry.
/// Profiles are compared by their bytes; a frame without one counts as
/// sRGB. Built profiles come from Little CMS (`cmsCreateRGBProfile`,
/// ICC v4, matrix/shaper).
public struct ColourProfile: Sendable, Equatable {
    /// The profile's bytes.
    public var bytes: [UInt8]

    /// A profile from its bytes (not checked; see `isReadableRGB`).
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// An RGB profile with the given chromaticities and transfer curve, or
    /// nil when Little CMS cannot build one (e.g. collinear primaries). The
    /// same arguments give the same bytes (the header's creation date is
    /// fixed), so built profiles compare equal.
    public init?(chromaticities: Chromaticities, transfer: ToneCurve) {
        guard let bytes = LittleCMS.rgbProfile(chromaticities, transfer: transfer) else { return nil }
        self.bytes = bytes
    }

    /// sRGB built from its chromaticities and curve.
    public static let sRGB = ColourProfile(chromaticities: .sRGB, transfer: .sRGB)!
    /// Display P3 (as iPhones write it: P3 primaries, D65, the sRGB curve).
    public static let displayP3 = ColourProfile(chromaticities: .displayP3, transfer: .sRGB)!

    /// True when Little CMS reads the profile and its colour space is RGB:
    /// only such profiles are converted from or to.
    public var isReadableRGB: Bool { LittleCMS.isRGBProfile(bytes) }
}
