public import Registration

/// The depth and segmentation a photo carries for portrait effects: a
/// nearness map (0…1, 1 = nearest, linear in disparity where the file says
/// how its values map to distance) and any portrait mattes, each at the size
/// the file stores it until `aligned(to:)` brings them onto the photo's grid.
public struct PortraitData: Sendable {
    /// Where the nearness map came from.
    public enum Source: String, Sendable {
        /// A HEIF depth or disparity auxiliary image (iPhone portrait HEIC).
        case heifDepth = "HEIF depth image"
        /// The grayscale disparity (or depth) JPEG after the photo in an MPF
        /// file (iPhone portrait JPEG).
        case mpfDisparity = "MPF disparity image"
        /// Google's `GDepth` XMP.
        case gDepth = "GDepth XMP"
        /// A separate image given by the caller (`--depth-map`).
        case sideCar = "depth map file"
    }

    /// Nearness, 0…1, 1 = nearest; nil when the file gives mattes only.
    public var nearness: Plane?
    /// Where `nearness` came from (nil with it).
    public var source: Source?
    /// The portrait mattes the file holds, by name.
    public var mattes: [Matte: Plane]

    public init(nearness: Plane?, source: Source?, mattes: [Matte: Plane] = [:]) {
        self.nearness = nearness
        self.source = source
        self.mattes = mattes
    }

    /// True when the file gave neither depth nor a matte.
    public var isEmpty: Bool { nearness == nil && mattes.isEmpty }

    /// The depth and mattes of the photo at `path`: a HEIF file's depth
    /// auxiliary image and mattes; a JPEG's MPF disparity (or depth) image
    /// and mattes, else its GDepth XMP. Empty when the file holds none.
    /// - Throws: `StackerError.unreadable` naming `path` when the file, or
    ///   the depth image it embeds, cannot be read.
    public static func read(_ path: some FilePathConvertible, maxPixels: Int = ImageFile.defaultMaxPixels) throws -> PortraitData {
        let file = path.filePath
        return try read(bytes: try FileBytes.read(file), file: file, maxPixels: maxPixels)
    }

    /// The same, from the photo's bytes already read (`file` names it in errors).
    static func read(bytes: [UInt8], file: FilePath, maxPixels: Int) throws -> PortraitData {
        if HEIFCodec.hasMagic(bytes) {
            return fromAuxiliaryImages(try HEIFCodec.auxiliaryImages(bytes, path: file.description, maxPixels: maxPixels))
        }
        guard ImageFormat.fromMagic(bytes) == .jpeg else { return PortraitData(nearness: nil, source: nil) }
        var data = try fromMPFImages(bytes, file: file, maxPixels: maxPixels)
        if data.nearness == nil, let gdepth = GDepthXMP(jpeg: bytes) {
            let decoded = try ImageFile.decode(bytes: gdepth.image, path: file.description + " (GDepth image)", maxPixels: maxPixels)
            var plane = upright(decoded, photo: bytes)
            for i in plane.pixels.indices { plane.pixels[i] = gdepth.nearness(plane.pixels[i]) }
            data.nearness = stretched(plane)
            data.source = .gDepth
        }
        return data
    }

    /// The depth map and mattes among the images an MPF index lists after
    /// the JPEG `photo`, each identified by its own XMP
    /// (`MPFAuxiliaryImage`): the first disparity or depth image (or, when
    /// none is labelled, the first gray image without XMP) and the first
    /// matte of each name. Images of another kind are not decoded; a
    /// colour image where a gray one belongs (another view) is passed over.
    /// - Throws: `StackerError.unreadable` naming `file` and the image when
    ///   one that is used cannot be decoded.
    static func fromMPFImages(_ photo: [UInt8], file: FilePath, maxPixels: Int) throws -> PortraitData {
        var data = PortraitData(nearness: nil, source: nil)
        let images = MPFAuxiliaryImage.all(in: photo)
        let labelled = images.contains { $0.kind == .disparity || $0.kind == .depth }
        func grayPlane(_ image: MPFAuxiliaryImage, _ what: String) throws -> Plane? {
            let decoded = try ImageFile.decode(bytes: Array(photo[image.range]), path: file.description + " (MPF \(what) image)",
                                               maxPixels: maxPixels)
            return decoded.image.channels == 1 ? upright(decoded, photo: photo) : nil
        }
        for image in images {
            switch image.kind {
            case .matte(let matte):
                if data.mattes[matte] == nil, let plane = try grayPlane(image, matte.rawValue + " matte") { data.mattes[matte] = plane }
            case .disparity, .depth, .unlabelled:
                guard data.nearness == nil, labelled == (image.kind != .unlabelled),
                      let plane = try grayPlane(image, image.kind == .depth ? "depth" : "disparity") else { continue }
                data.nearness = stretched(image.kind == .depth ? image.nearness(fromDepth: plane) : plane)
                data.source = .mpfDisparity
            case .other:
                continue
            }
        }
        return data
    }

    /// The first plane of a depth image embedded in the JPEG `photo`, turned
    /// upright as the photo is: the map is stored on the photo's stored
    /// grid, so the photo's EXIF orientation applies to it too (unless the
    /// depth image carries its own).
    static func upright(_ depth: DecodedImage, photo: [UInt8]) -> Plane {
        let plane = depth.image.planes[0]
        guard depth.orientation == 1 else { return plane }
        return Orientation.apply(EXIF.read(jpeg: photo).orientation, to: plane)
    }

    /// A side-car depth image: its first channel (its luma when in colour),
    /// read as nearness (white = near, as a disparity map is drawn) and
    /// stretched to 0…1.
    /// - Throws: `StackerError.unreadable` naming `path`.
    public static func sideCar(_ path: some FilePathConvertible, maxPixels: Int = ImageFile.defaultMaxPixels) throws -> PortraitData {
        let image = try ImageFile.read(path, maxPixels: maxPixels).image
        return PortraitData(nearness: stretched(image.channels == 1 ? image.planes[0] : image.luma), source: .sideCar)
    }

    /// The depth map and mattes among a HEIF file's auxiliary images.
    /// Stored values grow with nearness for disparity and inverse-z maps and
    /// with distance for a `uniformZ` map, which is therefore turned over.
    static func fromAuxiliaryImages(_ images: [AuxiliaryImage]) -> PortraitData {
        var data = PortraitData(nearness: nil, source: nil)
        for image in images {
            switch image.kind {
            case .depth where data.nearness == nil:
                var plane = image.plane
                if image.depth?.mapping == .uniformZ {
                    for i in plane.pixels.indices { plane.pixels[i] = 1 - plane.pixels[i] }
                }
                data.nearness = stretched(plane)
                data.source = .heifDepth
            case .auxiliary(let type):
                if let matte = Matte(auxiliaryType: type), data.mattes[matte] == nil { data.mattes[matte] = image.plane }
            default: break
            }
        }
        return data
    }

    /// `plane` rescaled so its smallest value is 0 and its largest 1 (all
    /// 0 when flat), as the tutorials normalise disparity.
    static func stretched(_ plane: Plane) -> Plane {
        guard let lo = plane.pixels.min(), let hi = plane.pixels.max(), hi > lo else {
            return Plane(width: plane.width, height: plane.height)
        }
        let scale = 1 / (hi - lo)
        return Plane(width: plane.width, height: plane.height, pixels: plane.pixels.map { ($0 - lo) * scale })
    }

    /// The nearness map and mattes on `photo`'s grid, each upsampled edge-
    /// aware with the photo's colours as the guide
    /// (`JointBilateralUpsampling`), so their edges follow the photo's.
    public func aligned(to photo: Image) -> PortraitData {
        PortraitData(nearness: nearness.map { JointBilateralUpsampling.upsample($0, guide: photo) }, source: source,
                     mattes: mattes.mapValues { JointBilateralUpsampling.upsample($0, guide: photo) })
    }
}
