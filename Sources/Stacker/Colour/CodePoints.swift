/// Colour described by ITU-T H.273 code points rather than an ICC profile:
/// a PNG's cICP chunk, a HEIF image's `nclx` colour box.
enum CodePoints {
    /// The profile for colour primaries `primaries` and transfer
    /// characteristics `transfer`, when a matrix/shaper profile expresses
    /// them: primaries BT.709 (1), BT.2020 (9) or Display P3 (12); a
    /// transfer of sRGB (13), BT.709 or BT.2020 (1, 6, 14, 15), linear (8)
    /// or a power 2.2 / 2.8 (4, 5). `.some(nil)` for sRGB itself (no profile
    /// is made: a frame without one counts as sRGB), `.some(bytes)`
    /// otherwise; nil for anything else (PQ and HLG, 16 and 18, have no
    /// matrix/shaper profile; 2 is "unspecified").
    static func profile(primaries: Int, transfer: Int) -> [UInt8]?? {
        let chromaticities: Chromaticities, curve: ToneCurve
        switch primaries {
        case 1: chromaticities = .sRGB
        case 9: chromaticities = .rec2020
        case 12: chromaticities = .displayP3
        default: return nil
        }
        switch transfer {
        case 13: curve = .sRGB
        case 1, 6, 14, 15: curve = .rec709
        case 8: curve = .gamma(1)
        case 4: curve = .gamma(2.2)
        case 5: curve = .gamma(2.8)
        default: return nil
        }
        if chromaticities == .sRGB, curve == .sRGB { return .some(nil) }
        guard let made = ColourProfile(chromaticities: chromaticities, transfer: curve) else { return nil }
        return .some(made.bytes)
    }
}
