/// The metadata of a PNG file, found in one walk over its chunk headers in
/// memory (bounds-checked, up to IEND; CRCs not checked): the eXIf
/// orientation, the iCCP profile (inflated), the XMP packet (iTXt keyword
/// `XML:com.adobe.xmp`, inflated when compressed) and the colour chunks
/// cICP, sRGB, gAMA and cHRM.
///
/// libpng is told to skip every ancillary chunk (see `stack_png_decode`),
/// so nothing here comes from it; a chunk's claimed length never drives an
/// allocation, and inflating stops at `EmbeddedMetadata.maxBytes`.
struct PNGMetadata {
    /// The orientation in the first eXIf chunk (1…8; 1 when that chunk is
    /// malformed), or nil when there is no eXIf chunk.
    var exifOrientation: Int?
    /// The iCCP profile and the XMP packet (PNG has no IPTC).
    var embedded = EmbeddedMetadata()
    /// True when an sRGB chunk says the image is sRGB.
    var isSRGB = false
    /// The gAMA chunk's file gamma (e.g. 0.45455), or nil.
    var gamma: Double?
    /// The cHRM chunk's white point and primaries, or nil.
    var chromaticities: Chromaticities?
    /// The cICP chunk's four code points (ITU-T H.273: colour primaries,
    /// transfer characteristics, matrix coefficients, full-range flag), or nil.
    var cicp: [UInt8]?

    /// Walks `b`, a whole PNG file (or its start).
    init(_ b: [UInt8]) {
        var i = 8
        while i + 8 <= b.count {
            let length = PNGMetadata.u32(b, i)
            let start = i + 8
            guard length <= b.count - start else { return }
            let type = String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self)
            let data = b[start..<(start + length)]
            switch type {
            case "eXIf" where exifOrientation == nil:
                let entry = TIFFReader(Array(data))?.orientation() ?? nil
                exifOrientation = entry.map { (1...8).contains($0.value) ? $0.value : 1 } ?? 1
            case "iCCP" where embedded.icc == nil:
                embedded.icc = PNGMetadata.iccProfile(data)
            case "iTXt" where embedded.xmp == nil:
                embedded.xmp = PNGMetadata.xmp(data)
            case "sRGB":
                isSRGB = true
            case "cICP" where length == 4:
                cicp = Array(data)
            case "gAMA" where length == 4:
                let value = PNGMetadata.u32(b, start)
                gamma = value > 0 ? Double(value) / 100_000 : nil
            case "cHRM" where length == 32:
                let v = (0..<8).map { Double(PNGMetadata.u32(b, start + 4 * $0)) / 100_000 }
                chromaticities = Chromaticities(white: (v[0], v[1]), red: (v[2], v[3]), green: (v[4], v[5]), blue: (v[6], v[7]))
            case "IEND":
                return
            default:
                break
            }
            i = start + length + 4  // data and CRC
        }
    }

    /// The orientation to apply: eXIf's, else XMP's `tiff:Orientation`, else 1.
    var orientation: Int {
        exifOrientation ?? embedded.xmp.flatMap(XMPOrientation.read) ?? 1
    }

    /// The profile the pixels are in, by PNG's order of precedence (third
    /// edition): a cICP chunk we can express as a profile (`cicpProfile`);
    /// the iCCP profile; nil (sRGB) for an sRGB chunk or when no chunk says
    /// anything; else a profile made from cHRM (sRGB's primaries without
    /// it) and gAMA (the sRGB curve without it).
    var colourProfile: [UInt8]? {
        if let cicp, let made = PNGMetadata.cicpProfile(cicp) { return made }
        if let icc = embedded.icc { return icc }
        if isSRGB || (gamma == nil && chromaticities == nil) { return nil }
        return ColourProfile(chromaticities: chromaticities ?? .sRGB,
                             transfer: gamma.map { .gamma(1 / $0) } ?? .sRGB)?.bytes
    }

    /// The profile for cICP code points, when they are full-range RGB
    /// (matrix 0, flag 1) whose primaries and transfer `CodePoints.profile`
    /// can express: `.some(nil)` for sRGB itself, `.some(bytes)` otherwise;
    /// nil for anything else, and the other chunks decide.
    static func cicpProfile(_ c: [UInt8]) -> [UInt8]?? {
        guard c.count == 4, c[2] == 0, c[3] == 1 else { return nil }
        return CodePoints.profile(primaries: Int(c[0]), transfer: Int(c[1]))
    }

    /// A big-endian 32-bit value at `i` (the caller checked the bounds).
    private static func u32(_ b: [UInt8], _ i: Int) -> Int {
        Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
    }

    /// An iCCP chunk's profile: name (1…79 bytes), NUL, method 0, zlib data.
    static func iccProfile(_ data: ArraySlice<UInt8>) -> [UInt8]? {
        guard let nul = data.prefix(80).firstIndex(of: 0), nul > data.startIndex,
              nul + 1 < data.endIndex, data[nul + 1] == 0 else { return nil }
        return EmbeddedMetadata.capped(PNGCodec.inflate(data[(nul + 2)...], limit: EmbeddedMetadata.maxBytes))
    }

    /// The XMP packet of an iTXt chunk whose keyword is `XML:com.adobe.xmp`:
    /// keyword, NUL, compression flag, method, language, NUL, translated
    /// keyword, NUL, text (zlib when the flag is 1).
    static func xmp(_ data: ArraySlice<UInt8>) -> [UInt8]? {
        let keyword = Array("XML:com.adobe.xmp\0".utf8)
        guard data.starts(with: keyword) else { return nil }
        var k = data.startIndex + keyword.count
        guard k + 2 <= data.endIndex else { return nil }
        let compressed = data[k] == 1
        k += 2
        for _ in 0..<2 {  // language tag, translated keyword
            guard let nul = data[k...].firstIndex(of: 0) else { return nil }
            k = nul + 1
        }
        let text = data[k...]
        return EmbeddedMetadata.capped(compressed ? PNGCodec.inflate(text, limit: EmbeddedMetadata.maxBytes) : Array(text))
    }
}
