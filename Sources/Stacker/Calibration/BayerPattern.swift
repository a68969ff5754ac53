/// The 2 × 2 colour filter layout of a one-shot-colour sensor, named by
/// the colours of its top-left 2 × 2 pixels read row by row (`rggb`: red at
/// (0, 0), green at (1, 0) and (0, 1), blue at (1, 1)).
public enum BayerPattern: String, Sendable, CaseIterable {
    case rggb = "RGGB"
    case bggr = "BGGR"
    case grbg = "GRBG"
    case gbrg = "GBRG"

    /// The channel (0 red, 1 green, 2 blue) of pixel `(x, y)`.
    @inlinable public func channel(x: Int, y: Int) -> Int {
        channels[(y & 1) << 1 | (x & 1)]
    }

    /// The channel of each of the four top-left pixels, row by row.
    public var channels: [Int] {
        rawValue.map { $0 == "R" ? 0 : ($0 == "G" ? 1 : 2) }
    }

    /// The pattern at the top-left of the same mosaic seen from pixel
    /// `(dx, dy)` on: an odd offset swaps columns or rows.
    public func shifted(dx: Int, dy: Int) -> BayerPattern {
        let c = channels
        let moved = (0..<4).map { i in c[((((i >> 1) + dy) & 1) << 1) | (((i & 1) + dx) & 1)] }
        return BayerPattern.allCases.first { $0.channels == moved }!
    }

    /// The pattern named by a FITS `BAYERPAT` value or a `--cfa` word
    /// (case-insensitive, blanks ignored), or nil.
    public init?(name: String) {
        self.init(rawValue: name.uppercased().filter { $0 != " " })
    }
}

/// Which CFA pattern a run's frames have (`--cfa`).
public enum CFAChoice: Sendable, Equatable {
    /// The file says (FITS `BAYERPAT`); frames without it are not mosaics.
    case auto
    /// Every one-channel frame is a mosaic of this pattern at its upright
    /// top-left pixel, whatever its file says.
    case pattern(BayerPattern)
    /// No frame is debayered: mosaics are stacked as gray frames.
    case none

    /// The pattern a one-channel frame whose file says `fromFile` is
    /// debayered with, or nil.
    func resolve(_ fromFile: BayerPattern?) -> BayerPattern? {
        switch self {
        case .auto: return fromFile
        case .pattern(let p): return p
        case .none: return nil
        }
    }
}

/// How a debayered camera raw's colour is balanced (`--wb`); see `RawColour`.
public enum WhiteBalance: String, Sendable, CaseIterable {
    /// Neither balance nor matrix: the camera's own colour, as today's
    /// Bayer FITS path gives it.
    case none
    /// The file's as-shot balance, then its camera matrix to linear sRGB;
    /// frames whose file has no balance (Bayer FITS) are left as they are.
    case camera
    /// Grey world (each CFA colour's mean made equal to green's) on every
    /// mosaic, then, for a camera raw, its matrix to linear sRGB.
    case auto
}

/// How a CFA mosaic becomes RGB (`--debayer`).
public enum DebayerMethod: String, Sendable, CaseIterable {
    /// Each missing colour is the mean of the 3 × 3 neighbours that have it
    /// (bilinear interpolation). The fastest.
    case bilinear
    /// Ratio Corrected Demosaicing (`RCDDebayer`): edge-directed, sharper
    /// and with fewer colour fringes than bilinear; its working memory
    /// beside the output is 16 rows of each of 11 buffers.
    case rcd
    /// Adaptive Homogeneity-Directed demosaicing (`AHDDebayer`): interpolates
    /// along rows and along columns and keeps at each pixel the smoother in
    /// CIELab; its working memory beside the output is 16 rows of each of 14 buffers.
    case ahd
}
