import Registration
import Stacker

/// A generated portrait with known truth: a textured subject (an ellipse on
/// a trunk) at one depth in front of a textured background at another, its
/// disparity map at half size, and the files each depth reader expects
/// (an MPF JPEG, a GDepth JPEG, a side-car PNG), built byte by byte.
public struct PortraitScene: Sendable {
    /// The photo, RGB.
    public let photo: Image
    /// True where the subject is.
    public let subject: [Bool]
    /// Nearness of the subject and of the background (1 = near).
    public static let subjectNearness: Float = 0.8, backgroundNearness: Float = 0.2
    /// The subject's and the background's base colours (textures ±0.08 around them).
    public static let subjectColour: [Float] = [0.85, 0.7, 0.2], backgroundColour: [Float] = [0.2, 0.4, 0.65]

    public var width: Int { photo.width }
    public var height: Int { photo.height }

    public init(width: Int = 128, height: Int = 96) {
        var planes = (0..<3).map { _ in [Float](repeating: 0, count: width * height) }
        var subject = [Bool](repeating: false, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let i = y * width + x
                subject[i] = Self.inSubject(Float(x) / Float(width), Float(y) / Float(height))
                // Fine stripes (period 4 px) in the background, a checker in the subject.
                let texture: Float = subject[i] ? ((x / 3 + y / 3) % 2 == 0 ? 0.08 : -0.08)
                                                : (x % 4 < 2 ? 0.08 : -0.08)
                let base = subject[i] ? Self.subjectColour : Self.backgroundColour
                for c in 0..<3 { planes[c][i] = base[c] + texture }
            }
        }
        photo = Image(width: width, height: height, planes: planes.map { Plane(width: width, height: height, pixels: $0) })
        self.subject = subject
    }

    /// The subject's shape in coordinates scaled to 0…1: a head over a trunk.
    static func inSubject(_ u: Float, _ v: Float) -> Bool {
        let head = ((u - 0.5) / 0.16) * ((u - 0.5) / 0.16) + ((v - 0.38) / 0.2) * ((v - 0.38) / 0.2) <= 1
        let trunk = abs(u - 0.5) <= 0.25 && v >= 0.6
        return head || trunk
    }

    /// The disparity map (white = near) at `width/factor × height/factor`,
    /// sampled from the same shape, so its edge is within a low-resolution
    /// pixel of the photo's.
    public func disparity(factor: Int = 2) -> Plane {
        let w = width / factor, h = height / factor
        var pixels = [Float](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let near = Self.inSubject((Float(x) + 0.5) / Float(w), (Float(y) + 0.5) / Float(h))
                pixels[y * w + x] = near ? Self.subjectNearness : Self.backgroundNearness
            }
        }
        return Plane(width: w, height: h, pixels: pixels)
    }

    /// The photo as a JPEG (quality 100, 4:4:4) with no depth.
    public func plainJPEG() throws -> [UInt8] {
        try ImageFile.encode(photo, format: .jpeg, options: EncodeOptions(quality: 100))
    }

    /// An iPhone-style portrait JPEG: the photo, an APP2 `MPF` index right
    /// after SOI listing it and the `images` (by default the disparity map
    /// alone), and each image as a grayscale JPEG after the photo's EOI, in
    /// order. An image with a `type` carries it as `apdi:AuxiliaryImageType`
    /// in its own XMP (as an element, or as an attribute when `attribute`),
    /// with `extraXMP` inside the same description; without one it has no XMP.
    public func mpfJPEG(images: [MPFImage]? = nil) throws -> [UInt8] {
        let primary = try plainJPEG()
        let streams = try (images ?? [MPFImage(plane: disparity())]).map { try $0.jpeg() }
        func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func be32(_ v: Int) -> [UInt8] { be16(v >> 16) + be16(v & 0xFFFF) }
        let count = 1 + streams.count
        // Big-endian TIFF header, one IFD of 3 entries at offset 8, the MP entries after it.
        let ifdSize = 2 + 3 * 12 + 4
        let entriesOffset = 8 + ifdSize
        var tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A] + be32(8)
        tiff += be16(3)
        tiff += be16(0xB000) + be16(7) + be32(4) + Array("0100".utf8)          // MPFVersion
        tiff += be16(0xB001) + be16(4) + be32(1) + be32(count)                  // NumberOfImages
        tiff += be16(0xB002) + be16(7) + be32(16 * count) + be32(entriesOffset) // MPEntry
        tiff += be32(0)
        let segmentLength = 2 + 4 + tiff.count + 16 * count
        // Offsets count from the TIFF header: SOI (2) + marker (2) + length (2) + "MPF\0" (4) = 10.
        let total = primary.count + segmentLength + 2
        tiff += be32(0x20_030000) + be32(total) + be32(0) + be16(0) + be16(0)   // primary, baseline
        var offset = total - 10
        for stream in streams {
            tiff += be32(0x00_000000) + be32(stream.count) + be32(offset) + be16(0) + be16(0)
            offset += stream.count
        }
        let withIndex = HandMadeMetadata.inserting([(0xE2, Array("MPF".utf8) + [0] + tiff)], intoJPEG: primary)
        precondition(withIndex.count == total, "MPF offsets miscounted")
        return streams.reduce(withIndex, +)
    }

    /// One gray image after the photo in `mpfJPEG(images:)`.
    public struct MPFImage: Sendable {
        public var plane: Plane
        public var type: String?
        public var attribute: Bool
        public var extraXMP: String

        public init(plane: Plane, type: String? = nil, attribute: Bool = false, extraXMP: String = "") {
            self.plane = plane
            self.type = type
            self.attribute = attribute
            self.extraXMP = extraXMP
        }

        /// The plane as a quality-100 gray JPEG, with its XMP when typed.
        func jpeg() throws -> [UInt8] {
            let jpeg = try ImageFile.encode(Image(width: plane.width, height: plane.height, planes: [plane]), format: .jpeg,
                                            options: EncodeOptions(quality: 100))
            guard let type else { return jpeg }
            let open = """
                <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
                <rdf:Description rdf:about="" xmlns:apdi="http://ns.apple.com/pixeldatainfo/1.0/"
                """
            let xmp = attribute
                ? open + " apdi:AuxiliaryImageType=\"\(type)\">\(extraXMP)</rdf:Description></rdf:RDF></x:xmpmeta>"
                : open + ">\n   <apdi:AuxiliaryImageType>\(type)</apdi:AuxiliaryImageType>\(extraXMP)</rdf:Description></rdf:RDF></x:xmpmeta>"
            return HandMadeMetadata.inserting([(0xE1, HandMadeMetadata.xmpSegment(Array(xmp.utf8)))], intoJPEG: jpeg)
        }
    }

    /// A Google lens-blur JPEG: the photo with GDepth `RangeInverse`
    /// (near 1 m, far 4 m) in the main XMP and the depth PNG, base64, in
    /// the extended XMP split over `pieces` APP1 segments. Stored values:
    /// dn = far·(d − near)/(d·(far − near)), 0 at near.
    public func gDepthJPEG(pieces: Int = 2) throws -> [UInt8] {
        let d = disparity()
        // Nearness n is linear in 1/d and RangeInverse's dn is 1 − n over [near, far].
        let dn = Plane(width: d.width, height: d.height, pixels: d.pixels.map { 1 - $0 })
        let png = try ImageFile.encode(Image(width: dn.width, height: dn.height, planes: [dn]), format: .png,
                                       options: EncodeOptions(bitDepth: 16))
        let guid = "0123456789ABCDEF0123456789ABCDEF"
        let main = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:GDepth="http://ns.google.com/photos/1.0/depthmap/" \
            xmlns:xmpNote="http://ns.adobe.com/xmp/note/" GDepth:Format="RangeInverse" GDepth:Near="1.0" \
            GDepth:Far="4.0" GDepth:Mime="image/png" xmpNote:HasExtendedXMP="\(guid)"/></rdf:RDF></x:xmpmeta>
            """
        let extended = Array("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:GDepth="http://ns.google.com/photos/1.0/depthmap/" \
            GDepth:Data="\(Self.base64(png))"/></rdf:RDF></x:xmpmeta>
            """.utf8)
        func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(v >> $0 & 0xFF) } }
        var segments: [(marker: UInt8, payload: [UInt8])] = [(0xE1, HandMadeMetadata.xmpSegment(Array(main.utf8)))]
        let size = (extended.count + pieces - 1) / pieces
        for start in stride(from: 0, to: extended.count, by: size) {
            let piece = extended[start..<min(extended.count, start + size)]
            segments.append((0xE1, Array("http://ns.adobe.com/xmp/extension/".utf8) + [0] + Array(guid.utf8)
                                   + be32(extended.count) + be32(start) + piece))
        }
        return HandMadeMetadata.inserting(segments, intoJPEG: try plainJPEG())
    }

    /// RFC 4648 base64 with padding, wrapped nowhere.
    static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var out = ""
        for start in stride(from: 0, to: bytes.count, by: 3) {
            let chunk = Array(bytes[start..<min(bytes.count, start + 3)]) + [0, 0]
            let v = Int(chunk[0]) << 16 | Int(chunk[1]) << 8 | Int(chunk[2])
            let n = min(3, bytes.count - start)
            for k in 0..<4 { out.append(k <= n ? alphabet[v >> (18 - 6 * k) & 63] : "=") }
        }
        return out
    }

    /// The share of pixels agreeing: |A ∩ B| / |A ∪ B| of `mask > 0.5` and the subject.
    public func intersectionOverUnion(_ mask: Plane) -> Double {
        var both = 0, either = 0
        for (m, s) in zip(mask.pixels, subject) {
            let a = m > 0.5
            if a && s { both += 1 }
            if a || s { either += 1 }
        }
        return either == 0 ? 0 : Double(both) / Double(either)
    }

    /// Indices of pixels at least `margin` pixels (Chebyshev) from the
    /// subject's edge: inside it (`inside` true) or outside.
    public func region(inside: Bool, margin: Int) -> [Int] {
        var out: [Int] = []
        for y in 0..<height {
            for x in 0..<width where subject[y * width + x] == inside {
                var clear = true
                search: for dy in -margin...margin {
                    for dx in -margin...margin {
                        let yy = min(height - 1, max(0, y + dy)), xx = min(width - 1, max(0, x + dx))
                        if subject[yy * width + xx] != inside { clear = false; break search }
                    }
                }
                if clear { out.append(y * width + x) }
            }
        }
        return out
    }

    /// Indices of background pixels within `1...distance` pixels
    /// (Chebyshev) of the subject: the ring where a halo would show.
    public func ring(distance: Int) -> [Int] {
        let outside = Set(region(inside: false, margin: distance))
        return (0..<(width * height)).filter { !subject[$0] && !outside.contains($0) }
    }
}
