/// Google's depth-map XMP (the `GDepth` namespace, written by the Camera
/// app's lens blur): the map as a base64 PNG or JPEG in `GDepth:Data`,
/// usually in the extended XMP (Adobe XMP part 3: APP1
/// `http://ns.adobe.com/xmp/extension/\0` segments, each with the packet's
/// GUID, its full length and this piece's offset), and in the main packet
/// `GDepth:Format` (`RangeInverse` or `RangeLinear`), `GDepth:Near` and
/// `GDepth:Far`.
struct GDepthXMP {
    /// How the stored value dn (0…1) maps to distance d; both formats have
    /// dn = 0 at `near` and 1 at `far`.
    enum Format: String {
        /// dn = far·(d − near) / (d·(far − near)): linear in 1/d.
        case rangeInverse = "RangeInverse"
        /// dn = (d − near) / (far − near).
        case rangeLinear = "RangeLinear"
    }

    var format: Format
    var near: Double?, far: Double?
    /// The encoded depth image (PNG or JPEG bytes).
    var image: [UInt8]

    /// `http://ns.adobe.com/xmp/extension/\0`, which starts an extended XMP piece.
    static let extendedHeader: [UInt8] = Array("http://ns.adobe.com/xmp/extension/".utf8) + [0]
    /// The most bytes of extended XMP assembled (a phone's depth PNG is well under it).
    static let extendedLimit = 32 << 20

    /// The GDepth map of a JPEG file, or nil when it has none (or a part
    /// of it is malformed: a format we do not know, bad base64).
    init?(jpeg: [UInt8]) {
        var main: [UInt8]?
        var pieces: [(guid: ArraySlice<UInt8>, total: Int, offset: Int, data: ArraySlice<UInt8>)] = []
        JPEGMetadata.forEachSegment(jpeg) { marker, payload in
            guard marker == 0xE1 else { return }
            let data = jpeg[payload]
            if main == nil, data.starts(with: JPEGMetadataSegments.xmpHeader) {
                main = Array(data.dropFirst(JPEGMetadataSegments.xmpHeader.count))
            } else if data.starts(with: Self.extendedHeader), data.count >= Self.extendedHeader.count + 40 {
                let g = data.startIndex + Self.extendedHeader.count
                func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 << 8 | Int(data[at + $1]) } }
                pieces.append((data[g..<(g + 32)], u32(g + 32), u32(g + 36), data[(g + 40)...]))
            }
        }
        guard let main else { return nil }
        let extended = Self.assemble(pieces, guid: XMPText.value(of: "xmpNote:HasExtendedXMP", in: main))
        guard let formatText = XMPText.value(of: "GDepth:Format", in: main) ?? extended.flatMap({ XMPText.value(of: "GDepth:Format", in: $0) }),
              let format = Format(rawValue: String(decoding: formatText, as: UTF8.self)),
              let data = XMPText.value(of: "GDepth:Data", in: main) ?? extended.flatMap({ XMPText.value(of: "GDepth:Data", in: $0) }),
              let image = Base64.decode(data)
        else { return nil }
        func number(_ name: String) -> Double? {
            (XMPText.value(of: name, in: main) ?? extended.flatMap { XMPText.value(of: name, in: $0) })
                .flatMap { Double(String(decoding: $0, as: UTF8.self)) }
        }
        self.format = format
        self.near = number("GDepth:Near")
        self.far = number("GDepth:Far")
        self.image = image
    }

    /// Nearness (0…1, growing towards the camera, linear in 1/d) of a stored
    /// value `dn`: 1 − dn for `RangeInverse`; for `RangeLinear`, 1/d
    /// rescaled between 1/far and 1/near (1 − dn when near or far is
    /// missing).
    func nearness(_ dn: Float) -> Float {
        guard format == .rangeLinear, let near, let far, near > 0, far > near else { return 1 - dn }
        let d = near + Double(dn) * (far - near)
        return Float((1 / d - 1 / far) / (1 / near - 1 / far))
    }

    /// The extended packet of `guid` (the main packet's
    /// `xmpNote:HasExtendedXMP`; any GUID when it names none) from its
    /// pieces; nil when none, when the pieces leave a gap, or over the limit.
    static func assemble(_ pieces: [(guid: ArraySlice<UInt8>, total: Int, offset: Int, data: ArraySlice<UInt8>)],
                         guid: ArraySlice<UInt8>?) -> [UInt8]? {
        let mine = pieces.filter { guid == nil || Array($0.guid) == Array(guid!) }
        guard let total = mine.first?.total, total > 0, total <= extendedLimit else { return nil }
        var out = [UInt8](repeating: 0, count: total)
        var covered = 0
        for p in mine.sorted(by: { $0.offset < $1.offset }) {
            guard p.total == total, p.offset == covered, p.offset + p.data.count <= total else { return nil }
            out.replaceSubrange(p.offset..<(p.offset + p.data.count), with: p.data)
            covered += p.data.count
        }
        return covered == total ? out : nil
    }
}
