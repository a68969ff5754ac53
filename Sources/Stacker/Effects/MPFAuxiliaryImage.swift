internal import Registration

/// One image after the photo in a JPEG's MPF index, told apart by its own
/// XMP as an iPhone writes it: `apdi:AuxiliaryImageType` (namespace
/// `http://ns.apple.com/pixeldatainfo/1.0/`) is `disparity` or `depth` for
/// the depth map, and a URN for the rest: a portrait matte
/// (`urn:com:apple:photo:2018:aux:portraiteffectsmatte`,
/// `urn:com:apple:photo:2019:aux:semanticskinmatte`, hair, teeth, and
/// `urn:com:apple:photo:2020:aux:semanticglassesmatte`) or something else
/// (an HDR gain map, `urn:com:apple:photo:2020:aux:hdrgainmap`). The images
/// are identified by that type, never by their position in the index.
struct MPFAuxiliaryImage {
    /// What the image holds.
    enum Kind: Equatable {
        /// Disparity (inverse distance): its values grow with nearness.
        case disparity
        /// Depth (distance): its values grow away from the camera.
        case depth
        /// A portrait segmentation matte.
        case matte(Matte)
        /// Something its XMP names that is neither (a gain map, another
        /// writer's image).
        case other
        /// An image without XMP: read as a disparity map when it is gray,
        /// the layout of a portrait JPEG whose writer did not label it.
        case unlabelled
    }

    /// What the image holds.
    var kind: Kind
    /// Where its JPEG stream lies in the file's bytes.
    var range: Range<Int>
    /// `apdi:FloatMinValue`…`apdi:FloatMaxValue`: what its lowest and
    /// highest stored values stand for (metres for depth), when given.
    var floatRange: ClosedRange<Double>?

    /// The images a JPEG's MPF index lists after the photo, each labelled.
    static func all(in jpeg: [UInt8]) -> [MPFAuxiliaryImage] {
        MPFImages.secondaryImages(in: jpeg).map { MPFAuxiliaryImage(range: $0, in: jpeg) }
    }

    /// The image at `range` of `jpeg`, labelled by the XMP of its own segments.
    init(range: Range<Int>, in jpeg: [UInt8]) {
        self.range = range
        guard let xmp = JPEGMetadata(Array(jpeg[range])).embedded.xmp else {
            kind = .unlabelled
            return
        }
        kind = XMPText.string(of: "apdi:AuxiliaryImageType", in: xmp).map(Self.kind(ofType:)) ?? .other
        if let low = XMPText.string(of: "apdi:FloatMinValue", in: xmp).flatMap(Double.init),
           let high = XMPText.string(of: "apdi:FloatMaxValue", in: xmp).flatMap(Double.init),
           low.isFinite, high.isFinite, low < high {
            floatRange = low...high
        }
    }

    /// The kind an `apdi:AuxiliaryImageType` value names: `disparity` and
    /// `depth` (also as the last part of a URN), a matte's URN, or other.
    static func kind(ofType type: String) -> Kind {
        if let matte = Matte(auxiliaryType: type) { return .matte(matte) }
        switch type.split(separator: ":").last?.lowercased() {
        case "disparity": return .disparity
        case "depth": return .depth
        default: return .other
        }
    }

    /// Nearness (growing towards the camera, linear in inverse distance)
    /// of a depth map's stored values (0…1): the inverse of the distance
    /// they stand for when `floatRange` gives positive distances, else the
    /// values turned over.
    func nearness(fromDepth plane: Plane) -> Plane {
        var out = plane
        if let r = floatRange, r.lowerBound > 0 {
            let low = Float(r.lowerBound), span = Float(r.upperBound - r.lowerBound)
            for i in out.pixels.indices { out.pixels[i] = 1 / (low + out.pixels[i] * span) }
        } else {
            for i in out.pixels.indices { out.pixels[i] = 1 - out.pixels[i] }
        }
        return out
    }
}
