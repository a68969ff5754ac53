internal import CHEIF
import Registration

/// One libheif context over a file held in memory, freed in `deinit`.
/// The context reads the caller's bytes without copying them, so it must not
/// outlive the buffer it was opened on: `HEIFCodec` opens and drops it inside
/// one `withUnsafeBufferPointer`.
private final class HEIFContext {
    /// The C context; valid for the life of this object.
    let raw: OpaquePointer

    /// Parses the boxes of `bytes` (no pixels are decoded). Images wider or
    /// taller than `maxSide` are refused by libheif itself, and a grid or
    /// overlay whose canvas is larger than its announced size by
    /// `HEIFDerivedCanvas` before libheif sees the file.
    /// The corresponding C functions are `heif_context_alloc` and
    /// `heif_context_read_from_memory_without_copy`.
    /// - Throws: `StackerError.unreadable` naming `path`.
    init(_ bytes: UnsafeBufferPointer<UInt8>, maxSide: Int, path: String) throws {
        HEIFCodec.initialise()
        try HEIFDerivedCanvas.check(bytes, path: path)
        guard let ctx = heif_context_alloc() else {
            throw StackerError.unreadable(path: path, reason: "cannot start the HEIF decoder")
        }
        raw = ctx
        // Never raise libheif's own limit (32 768 per side in 1.15), only lower it.
        heif_context_set_maximum_image_size_limit(ctx, Int32(min(maxSide, HEIFCodec.libheifMaxSide)))
        // Grid tiles on the calling thread: frames are already decoded in
        // parallel, one per worker (`--threads`).
        heif_context_set_max_decoding_threads(ctx, 0)
        let error = heif_context_read_from_memory_without_copy(ctx, bytes.baseAddress, bytes.count, nil)
        try HEIFCodec.check(error, path: path)
    }

    deinit { heif_context_free(raw) }

    /// The IDs of the file's top-level images (the pictures it shows, not
    /// thumbnails, grid tiles, alpha or depth images), in file order.
    var topLevelImageIDs: [heif_item_id] {
        HEIFCodec.itemIDs(count: heif_context_get_number_of_top_level_images(raw)) {
            heif_context_get_list_of_top_level_image_IDs(raw, $0, $1)
        }
    }

    /// A handle on the primary image (see below), or on top-level image
    /// `index` (from 0).
    /// - Throws: `StackerError.unreadable` naming `path`, also when there is
    ///   no such image.
    func handle(frame index: Int?, path: String) throws -> HEIFImageHandle {
        var handle: OpaquePointer?
        if let index {
            let ids = topLevelImageIDs
            guard ids.indices.contains(index) else {
                throw StackerError.unreadable(path: path, reason: "the file holds \(ids.count) image(s), not an image \(index)")
            }
            try HEIFCodec.check(heif_context_get_image_handle(raw, ids[index], &handle), path: path)
        } else {
            // The primary image, when it is one of the pictures the file
            // shows; a file whose `pitm` names anything else (a hidden or
            // missing item) shows its first top-level image, as heif-convert does.
            var primary: heif_item_id = 0
            let ids = topLevelImageIDs
            let named = heif_context_get_primary_image_ID(raw, &primary).code == heif_error_Ok && ids.contains(primary)
            guard let id = named ? primary : ids.first else {
                throw StackerError.unreadable(path: path, reason: "the HEIF file shows no image")
            }
            try HEIFCodec.check(heif_context_get_image_handle(raw, id, &handle), path: path)
        }
        guard let handle else { throw StackerError.unreadable(path: path, reason: "the HEIF file has no such image") }
        return HEIFImageHandle(handle)
    }
}

/// One image handle (an image of the file, not yet decoded), released in `deinit`.
private final class HEIFImageHandle {
    let raw: OpaquePointer
    init(_ raw: OpaquePointer) { self.raw = raw }
    deinit { heif_image_handle_release(raw) }

    /// Width and height as libheif announces them, meant to be after the
    /// file's transformations (`irot`, `imir`, `clap`); libheif 1.15 gives
    /// the stored size for some rotated files (Sony HIF grids), so only the
    /// decoded image's own size is final.
    var size: (width: Int, height: Int) {
        (Int(heif_image_handle_get_width(raw)), Int(heif_image_handle_get_height(raw)))
    }

    /// The larger of the announced and the stored (`ispe`) pixel counts: a
    /// bound on the decoded image's pixels (`clap` only crops, `irot` only
    /// turns), nil when either product overflows.
    var pixelBound: Int? {
        let (a, o1) = Int(heif_image_handle_get_width(raw)).multipliedReportingOverflow(by: Int(heif_image_handle_get_height(raw)))
        let (b, o2) = Int(heif_image_handle_get_ispe_width(raw)).multipliedReportingOverflow(by: Int(heif_image_handle_get_ispe_height(raw)))
        return o1 || o2 ? nil : max(a, b)
    }

    /// Bits per luma sample as coded (8, 10, 12; -1 when unknown).
    var lumaBits: Int { Int(heif_image_handle_get_luma_bits_per_pixel(raw)) }

    /// The payload of the first metadata block of `type` ("Exif", "mime"),
    /// or nil when there is none or it is larger than `limit` bytes.
    func metadata(type: String, limit: Int) -> [UInt8]? {
        var id: heif_item_id = 0
        guard heif_image_handle_get_list_of_metadata_block_IDs(raw, type, &id, 1) == 1 else { return nil }
        let size = heif_image_handle_get_metadata_size(raw, id)
        guard size > 0, size <= limit else { return nil }
        var data = [UInt8](repeating: 0, count: size)
        let error = heif_image_handle_get_metadata(raw, id, &data)
        return error.code == heif_error_Ok ? data : nil
    }

    /// The XMP packet: the first `mime` metadata block whose content type
    /// is `application/rdf+xml` (nil when none, or over `limit` bytes).
    func xmp(limit: Int) -> [UInt8]? {
        let count = heif_image_handle_get_number_of_metadata_blocks(raw, "mime")
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: Int(min(count, 64)))
        let got = Int(heif_image_handle_get_list_of_metadata_block_IDs(raw, "mime", &ids, Int32(ids.count)))
        for id in ids.prefix(max(0, min(got, ids.count))) {
            guard let type = heif_image_handle_get_metadata_content_type(raw, id),
                  String(cString: type) == "application/rdf+xml" else { continue }
            let size = heif_image_handle_get_metadata_size(raw, id)
            guard size > 0, size <= limit else { return nil }
            var data = [UInt8](repeating: 0, count: size)
            return heif_image_handle_get_metadata(raw, id, &data).code == heif_error_Ok ? data : nil
        }
        return nil
    }

    /// The profile the decoded RGB is in: the ICC profile of a `colr` box
    /// of type `prof` or `rICC` (nil when over `limit` bytes), else one
    /// made from an `nclx` box's primaries and transfer
    /// (`CodePoints.profile`; libheif has already applied its matrix);
    /// nil for sRGB, no `colr` box, or code points no profile expresses.
    func colourProfile(limit: Int) -> [UInt8]? {
        if let icc = iccProfile(limit: limit) { return icc }
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>? = nil
        let error = heif_image_handle_get_nclx_color_profile(raw, &nclx)
        // libheif 1.15 allocates the profile before it checks the code
        // points, and hands it over with the error for ones it does not
        // know (unspecified primaries): it is ours to free either way.
        defer { if let nclx { heif_nclx_color_profile_free(nclx) } }
        guard error.code == heif_error_Ok, let nclx else { return nil }
        let made = CodePoints.profile(primaries: Int(nclx.pointee.color_primaries.rawValue),
                                      transfer: Int(nclx.pointee.transfer_characteristics.rawValue))
        return made ?? nil
    }

    /// The ICC profile (`colr` box of type `prof` or `rICC`), or nil when
    /// the image has none (or an nclx description, or one over `limit` bytes).
    func iccProfile(limit: Int) -> [UInt8]? {
        let type = heif_image_handle_get_color_profile_type(raw)
        guard type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC else { return nil }
        let size = heif_image_handle_get_raw_color_profile_size(raw)
        guard size > 0, size <= limit else { return nil }
        var data = [UInt8](repeating: 0, count: size)
        let error = heif_image_handle_get_raw_color_profile(raw, &data)
        return error.code == heif_error_Ok ? data : nil
    }
}

extension HEIFImageHandle {
    /// The IDs of this image's depth maps (libheif 1.15 gives at most one).
    var depthImageIDs: [heif_item_id] {
        HEIFCodec.itemIDs(count: heif_image_handle_get_number_of_depth_images(raw)) {
            heif_image_handle_get_list_of_depth_image_IDs(raw, $0, $1)
        }
    }

    /// The IDs of this image's auxiliary images other than alpha and depth.
    var otherAuxiliaryIDs: [heif_item_id] {
        let filter = Int32(LIBHEIF_AUX_IMAGE_FILTER_OMIT_ALPHA | LIBHEIF_AUX_IMAGE_FILTER_OMIT_DEPTH)
        return HEIFCodec.itemIDs(count: heif_image_handle_get_number_of_auxiliary_images(raw, filter)) {
            heif_image_handle_get_list_of_auxiliary_image_IDs(raw, filter, $0, $1)
        }
    }

    /// The depth representation the file gives for depth map `id`, or nil.
    func depthRepresentation(of id: heif_item_id) -> AuxiliaryImage.DepthRepresentation? {
        var info: UnsafePointer<heif_depth_representation_info>?
        guard heif_image_handle_get_depth_image_representation_info(raw, id, &info) != 0, let info else { return nil }
        defer { heif_depth_representation_info_free(info) }
        let i = info.pointee
        let mapping: AuxiliaryImage.DepthRepresentation.Mapping
        switch i.depth_representation_type {
        case heif_depth_representation_type_uniform_inverse_Z: mapping = .uniformInverseZ
        case heif_depth_representation_type_uniform_disparity: mapping = .uniformDisparity
        case heif_depth_representation_type_uniform_Z: mapping = .uniformZ
        case heif_depth_representation_type_nonuniform_disparity: mapping = .nonuniformDisparity
        default: return nil
        }
        return AuxiliaryImage.DepthRepresentation(mapping: mapping,
                                                  zNear: i.has_z_near != 0 ? i.z_near : nil,
                                                  zFar: i.has_z_far != 0 ? i.z_far : nil,
                                                  dMin: i.has_d_min != 0 ? i.d_min : nil,
                                                  dMax: i.has_d_max != 0 ? i.d_max : nil)
    }

    /// The auxiliary type URN of this (auxiliary) image, or nil.
    var auxiliaryType: String? {
        var type: UnsafePointer<CChar>?
        guard heif_image_handle_get_auxiliary_type(raw, &type).code == heif_error_Ok else { return nil }
        defer { heif_image_handle_free_auxiliary_types(raw, &type) }
        return type.map { String(cString: $0) }
    }
}

/// A decoded image, released in `deinit`.
private final class HEIFDecodedImage {
    let raw: OpaquePointer
    init(_ raw: OpaquePointer) { self.raw = raw }
    deinit { heif_image_release(raw) }
}

/// HEIF-family reading through libheif: HEIC (HEVC), HEIF, Sony/Canon HIF
/// and AVIF (AV1); and HEIC writing (`encode`, x265). The only file that
/// imports `CHEIF`; no C type leaves it.
///
/// Contract:
/// - A file's frames are its top-level images in file order (a burst saved
///   in one file, as phones write it) when they all have the primary
///   image's size; a file whose top-level images differ in size is a
///   collection, not a burst, and gives its primary image only. Thumbnails,
///   grid tiles, alpha and depth images are never frames.
///   `decode(_:frame: nil…)` gives the primary image.
/// - The image comes with its transformations applied by libheif (`clap`
///   crop, `irot` rotation, `imir` mirror), so it is upright. The EXIF
///   orientation tag of a HEIF file repeats what `irot`/`imir` say (HEIF
///   makes those boxes authoritative; iPhones write both), so it is not
///   applied a second time: it is reset to 1 in the carried EXIF.
/// - 8-bit images give `bitDepth` 8 (values / 255); 10- and 12-bit images
///   give `bitDepth` 16 (values / (2^bits − 1)). Always 3 planes (R, G, B)
///   as libheif converts YCbCr with the file's matrix; alpha is dropped.
/// - Memory: width × height is checked against `maxPixels` from the box
///   headers before anything is decoded (the larger of the announced and
///   the stored size), a grid or overlay canvas larger than its stored
///   size is refused (`HEIFDerivedCanvas`: libheif allocates the canvas the
///   item declares), and libheif's per-side limit is lowered to
///   `maxPixels` when that is smaller; the decoded image may not hold more
///   pixels than was checked.
enum HEIFCodec {
    /// libheif 1.15's own per-side limit (`MAX_IMAGE_WIDTH`/`HEIGHT` in its
    /// security_limits.h); we only ever lower it.
    static let libheifMaxSide = 32768
    /// EXIF and ICC blocks larger than this are ignored (no phone writes
    /// more than a few hundred KB).
    static let metadataLimit = 4 << 20

    /// Brands of the `ftyp` box that mark a HEIF-family file.
    static let brands: Set<String> = ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs",
                                      "mif1", "mif2", "msf1", "avif", "avis", "avio"]

    /// Registers libheif's built-in decoders once per process
    /// (`heif_init`, which is thread-safe).
    static func initialise() { _ = initialised }
    private static let initialised: Void = { _ = heif_init(nil) }()

    /// True when `bytes` starts with an ISO BMFF `ftyp` box whose major or a
    /// compatible brand is a HEIF one (`heic`, `heix`, `mif1`, `msf1`,
    /// `avif`, …; see `brands`). MP4 and QuickTime video do not match.
    static func hasMagic(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 12, bytes[4] == 0x66, bytes[5] == 0x74, bytes[6] == 0x79, bytes[7] == 0x70 else { return false }
        let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        let end = min(bytes.count, boxSize >= 16 ? boxSize : 12)
        func brand(at i: Int) -> String { String(decoding: bytes[i..<(i + 4)], as: UTF8.self) }
        if brands.contains(brand(at: 8)) { return true }
        var i = 16
        while i + 4 <= end {
            if brands.contains(brand(at: i)) { return true }
            i += 4
        }
        return false
    }

    /// How many frames the file holds: its top-level images when they all
    /// share the primary image's size, else 1 (see the contract above).
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func frameCount(_ bytes: [UInt8], path: String) throws -> Int {
        try bytes.withUnsafeBufferPointer { b in
            let context = try HEIFContext(b, maxSide: libheifMaxSide, path: path)
            let count = context.topLevelImageIDs.count
            guard count > 1 else { return 1 }
            let primary = try context.handle(frame: nil, path: path).size
            for index in 0..<count where try context.handle(frame: index, path: path).size != primary { return 1 }
            return count
        }
    }

    /// The primary image's size as libheif announces it (see
    /// `HEIFImageHandle.size`: for some rotated files the stored size), and
    /// 3 channels.
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func header(_ bytes: [UInt8], path: String) throws -> (width: Int, height: Int, channels: Int) {
        try bytes.withUnsafeBufferPointer { b in
            let context = try HEIFContext(b, maxSide: libheifMaxSide, path: path)
            let size = try context.handle(frame: nil, path: path).size
            return (size.width, size.height, 3)
        }
    }

    /// Decodes the primary image (`frame` nil) or top-level image `frame`
    /// (from 0), upright, with its EXIF (orientation reset to 1) and ICC
    /// profile. See the type's contract.
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func decode(_ bytes: [UInt8], frame: Int?, path: String, maxPixels: Int) throws -> DecodedImage {
        try bytes.withUnsafeBufferPointer { b in
            let context = try HEIFContext(b, maxSide: maxPixels, path: path)
            let handle = try context.handle(frame: frame, path: path)
            let (width, height) = handle.size
            guard width > 0, height > 0 else {
                throw StackerError.unreadable(path: path, reason: "the HEIF image has no size")
            }
            guard let bound = handle.pixelBound, bound <= maxPixels else {
                throw StackerError.unreadable(path: path, reason: JPEGCodec.tooLargeReason(width: width, height: height, maxPixels: maxPixels))
            }
            let deep = handle.lumaBits > 8
            let image = try decodePixels(handle, deep: deep, maxPixels: bound, path: path)
            return DecodedImage(image: image, bitDepth: deep ? 16 : 8, orientation: 1,
                                exif: exif(handle.metadata(type: "Exif", limit: metadataLimit)),
                                iccProfile: handle.colourProfile(limit: metadataLimit),
                                xmp: handle.xmp(limit: metadataLimit))
        }
    }

    /// The item IDs a libheif list function gives: `count` as announced,
    /// `list(buffer, capacity)` returning how many it wrote.
    fileprivate static func itemIDs(count: Int32,
                                    list: (UnsafeMutablePointer<heif_item_id>, Int32) -> Int32) -> [heif_item_id] {
        guard count > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: Int(count))
        let got = ids.withUnsafeMutableBufferPointer { list($0.baseAddress!, count) }
        return Array(ids.prefix(max(0, min(Int(got), Int(count)))))
    }

    /// The depth maps and other auxiliary images (alpha excluded) of the
    /// primary image, decoded as one 0…1 plane each, depth maps first.
    /// Each is checked against `maxPixels` before it is decoded.
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func auxiliaryImages(_ bytes: [UInt8], path: String, maxPixels: Int) throws -> [AuxiliaryImage] {
        try bytes.withUnsafeBufferPointer { b in
            let context = try HEIFContext(b, maxSide: maxPixels, path: path)
            let main = try context.handle(frame: nil, path: path)
            var images: [AuxiliaryImage] = []
            for id in main.depthImageIDs {
                var raw: OpaquePointer?
                try check(heif_image_handle_get_depth_image_handle(main.raw, id, &raw), path: path)
                guard let raw else { continue }
                let (plane, bits) = try decodeMonochrome(HEIFImageHandle(raw), maxPixels: maxPixels, path: path)
                images.append(AuxiliaryImage(kind: .depth, plane: plane, bitDepth: bits,
                                             depth: main.depthRepresentation(of: id)))
            }
            for id in main.otherAuxiliaryIDs {
                var raw: OpaquePointer?
                try check(heif_image_handle_get_auxiliary_image_handle(main.raw, id, &raw), path: path)
                guard let raw else { continue }
                let handle = HEIFImageHandle(raw)
                let (plane, bits) = try decodeMonochrome(handle, maxPixels: maxPixels, path: path)
                images.append(AuxiliaryImage(kind: .auxiliary(type: handle.auxiliaryType ?? ""), plane: plane, bitDepth: bits))
            }
            return images
        }
    }

    /// The luma of `handle` (transformations applied) as one 0…1 plane,
    /// with its bits per sample.
    private static func decodeMonochrome(_ handle: HEIFImageHandle, maxPixels: Int,
                                         path: String) throws -> (Plane, Int) {
        guard let bound = handle.pixelBound, bound <= maxPixels else {
            let (w, h) = handle.size
            throw StackerError.unreadable(path: path, reason: JPEGCodec.tooLargeReason(width: w, height: h, maxPixels: maxPixels))
        }
        var decoded: OpaquePointer?
        try check(heif_decode_image(handle.raw, &decoded, heif_colorspace_monochrome, heif_chroma_monochrome, nil), path: path)
        guard let decoded else { throw StackerError.unreadable(path: path, reason: "the HEIF decoder returned no image") }
        let image = HEIFDecodedImage(decoded)
        let channel = heif_channel_Y
        let width = Int(heif_image_get_width(image.raw, channel)), height = Int(heif_image_get_height(image.raw, channel))
        let storage = Int(heif_image_get_bits_per_pixel(image.raw, channel))
        guard width > 0, height > 0, width.multipliedReportingOverflow(by: height).partialValue <= bound,
              width <= bound, height <= bound, storage == 8 || storage == 16 else {
            throw StackerError.unreadable(path: path, reason: "the decoded HEIF auxiliary image does not match its header")
        }
        var stride: Int32 = 0
        guard let base = heif_image_get_plane_readonly(image.raw, channel, &stride),
              Int(stride) >= width * storage / 8 else {
            throw StackerError.unreadable(path: path, reason: "the HEIF decoder returned no pixels")
        }
        let bits = min(max(Int(heif_image_get_bits_per_pixel_range(image.raw, channel)), 1), 16)
        let scale = 1 / Float((1 << bits) - 1)
        var pixels = [Float](repeating: 0, count: width * height)
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                let row = UnsafeRawPointer(base + y * Int(stride))
                for x in 0..<width {
                    // Deeper samples are 16-bit words in the machine's order.
                    let v = storage == 8 ? Float(row.load(fromByteOffset: x, as: UInt8.self))
                                         : Float(row.loadUnaligned(fromByteOffset: 2 * x, as: UInt16.self))
                    out[y * width + x] = v * scale
                }
            }
        }
        return (Plane(width: width, height: height, pixels: pixels), bits)
    }

    /// The pixels of `handle` as R, G, B float planes (transformations
    /// applied): 8-bit interleaved RGB, or 16-bit little-endian RRGGBB for
    /// deeper images, scaled by the decoded bit depth's full scale.
    private static func decodePixels(_ handle: HEIFImageHandle, deep: Bool, maxPixels: Int,
                                     path: String) throws -> Image {
        var decoded: OpaquePointer?
        let chroma = deep ? heif_chroma_interleaved_RRGGBB_LE : heif_chroma_interleaved_RGB
        try check(heif_decode_image(handle.raw, &decoded, heif_colorspace_RGB, chroma, nil), path: path)
        guard let decoded else { throw StackerError.unreadable(path: path, reason: "the HEIF decoder returned no image") }
        let image = HEIFDecodedImage(decoded)
        let channel = heif_channel_interleaved
        let width = Int(heif_image_get_width(image.raw, channel)), height = Int(heif_image_get_height(image.raw, channel))
        guard width > 0, height > 0, width.multipliedReportingOverflow(by: height).partialValue <= maxPixels,
              width <= maxPixels, height <= maxPixels else {
            throw StackerError.unreadable(path: path, reason: "the decoded HEIF image is larger than its header says")
        }
        var stride: Int32 = 0
        guard let base = heif_image_get_plane_readonly(image.raw, channel, &stride), Int(stride) >= width * (deep ? 6 : 3) else {
            throw StackerError.unreadable(path: path, reason: "the HEIF decoder returned no pixels")
        }
        let bits = Int(heif_image_get_bits_per_pixel_range(image.raw, channel))
        let scale: Float = deep ? 1 / Float((1 << min(max(bits, 9), 16)) - 1) : 1 / 255
        let n = width * height
        var red = [Float](repeating: 0, count: n), green = red, blue = red
        red.withUnsafeMutableBufferPointer { r in
            green.withUnsafeMutableBufferPointer { g in
                blue.withUnsafeMutableBufferPointer { bl in
                    for y in 0..<height {
                        let row = base + y * Int(stride)
                        let o = y * width
                        if deep {
                            let p = UnsafeRawPointer(row)
                            for x in 0..<width {
                                let s = 6 * x
                                r[o + x] = Float(UInt16(littleEndian: p.loadUnaligned(fromByteOffset: s, as: UInt16.self))) * scale
                                g[o + x] = Float(UInt16(littleEndian: p.loadUnaligned(fromByteOffset: s + 2, as: UInt16.self))) * scale
                                bl[o + x] = Float(UInt16(littleEndian: p.loadUnaligned(fromByteOffset: s + 4, as: UInt16.self))) * scale
                            }
                        } else {
                            for x in 0..<width {
                                r[o + x] = Float(row[3 * x]) * scale
                                g[o + x] = Float(row[3 * x + 1]) * scale
                                bl[o + x] = Float(row[3 * x + 2]) * scale
                            }
                        }
                    }
                }
            }
        }
        return Image(width: width, height: height,
                     planes: [red, green, blue].map { Plane(width: width, height: height, pixels: $0) })
    }

    /// The TIFF block of a HEIF `Exif` item (a 4-byte big-endian offset to
    /// the TIFF header, usually `Exif\0\0` in between) with its orientation
    /// reset to 1, or nil when there is none or it is malformed.
    static func exif(_ item: [UInt8]?) -> [UInt8]? {
        guard let item, item.count >= 4 else { return nil }
        let offset = Int(item[0]) << 24 | Int(item[1]) << 16 | Int(item[2]) << 8 | Int(item[3])
        guard offset >= 0, offset <= item.count - 4 - 8 else { return nil }
        var tiff = Array(item[(4 + offset)...])
        // Some writers point at `Exif\0\0` rather than past it.
        if TIFFReader(tiff) == nil, tiff.starts(with: EXIF.header) { tiff.removeFirst(EXIF.header.count) }
        guard let found = TIFFReader(tiff)?.orientation() else { return nil }
        found?.patch(&tiff, to: 1)
        return tiff
    }

    /// Throws the libheif error as a one-line sentence; returns on success.
    static func check(_ error: heif_error, path: String) throws {
        guard error.code != heif_error_Ok else { return }
        // libheif's messages may end in (or hold) a newline: one line only.
        var text = (error.message.map { String(cString: $0) } ?? "")
            .split(whereSeparator: { $0 == "\n" || $0 == "\r" }).joined(separator: " ")
        while text.hasSuffix(" ") { text.removeLast() }
        if text.isEmpty { text = "HEIF decoding failed" }
        let reason: String
        switch error.code {
        case heif_error_Unsupported_filetype, heif_error_Unsupported_feature:
            reason = "unsupported HEIF file (\(text))"
        case heif_error_Memory_allocation_error:
            reason = "HEIF image too large or damaged (\(text))"
        default:
            reason = "corrupt HEIF data (\(text))"
        }
        throw StackerError.unreadable(path: path, reason: reason)
    }
}

/// The bytes libheif writes, gathered through its `heif_writer` callback.
private final class HEIFOutput {
    var bytes: [UInt8] = []
}

/// A libheif context to encode into, with its encoder; both freed in `deinit`.
private final class HEIFEncodingContext {
    let context: OpaquePointer
    let encoder: OpaquePointer

    /// A fresh context and the HEVC encoder (x265).
    /// The corresponding C functions are `heif_context_alloc` and
    /// `heif_context_get_encoder_for_format`.
    /// - Throws: `StackerError.writeFailed` naming `path` when libheif has
    ///   no HEVC encoder.
    init(path: String) throws {
        HEIFCodec.initialise()
        guard heif_have_encoder_for_format(heif_compression_HEVC) != 0 else {
            throw StackerError.writeFailed(path: path, reason: "this libheif has no HEVC encoder (install libheif1 built with x265)")
        }
        guard let context = heif_context_alloc() else {
            throw StackerError.writeFailed(path: path, reason: "cannot start the HEIF encoder")
        }
        var encoder: OpaquePointer?
        let error = heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder)
        guard error.code == heif_error_Ok, let encoder else {
            heif_context_free(context)
            throw StackerError.writeFailed(path: path, reason: "this libheif has no HEVC encoder (install libheif1 built with x265)")
        }
        self.context = context
        self.encoder = encoder
    }

    deinit {
        heif_encoder_release(encoder)
        heif_context_free(context)
    }
}

extension HEIFCodec {
    /// Encodes `image` as a HEIC file (HEVC through libheif's x265 encoder).
    ///
    /// - `quality` 1…100 is x265's lossy quality (`heif_encoder_set_lossy_quality`);
    ///   chroma is kept at full resolution (4:4:4, x265's `chroma` parameter)
    ///   at quality ≥ 90 and subsampled 4:2:0 below, as for JPEG.
    /// - x265's preset is `medium`, not libheif's default `slow`: measured
    ///   with heif-enc at quality 95, 4:4:4, on a 12 MP gradient it took
    ///   11.6 s instead of 25.1 s for 64.1 dB instead of 62.7 dB and 17 %
    ///   more bytes; on a 640×427 street frame 0.79 s instead of 1.77 s,
    ///   56.2 dB instead of 55.9 dB, 8 % more bytes.
    ///   4:4:4 needs an HEVC Range Extensions decoder (libheif's libde265
    ///   has one); players built for phone photos, which are 4:2:0 Main or
    ///   Main 10, may not open it: quality 89 or below writes 4:2:0.
    /// - `bitDepth` 16 or 32 writes 10-bit samples; anything else 8-bit.
    ///   A gray image is written as R = G = B.
    /// - `metadata`: the ICC profile as a `colr` box of type `prof`, the
    ///   EXIF (a TIFF block) as an `Exif` item, the XMP as a `mime` item.
    ///   IPTC has no HEIF item and is not written.
    /// - Throws: `StackerError.writeFailed` naming `path` when libheif has
    ///   no HEVC encoder or encoding fails; `.invalidInput` for a quality
    ///   outside 1…100.
    static func encode(_ image: Image, quality: Int, bitDepth: Int, metadata: EmbeddedMetadata,
                       path: String) throws -> [UInt8] {
        guard (1...100).contains(quality) else {
            throw StackerError.invalidInput(path: path, reason: "HEIC quality must be between 1 and 100, not \(quality)")
        }
        guard image.width <= libheifMaxSide, image.height <= libheifMaxSide else {
            throw StackerError.invalidInput(path: path, reason: "the image is too large for HEIC (at most \(libheifMaxSide) pixels a side)")
        }
        let deep = bitDepth == 16 || bitDepth == 32
        let coding = try HEIFEncodingContext(path: path)
        try checkWrite(heif_encoder_set_lossy_quality(coding.encoder, Int32(quality)), path: path)
        try checkWrite(heif_encoder_set_parameter_string(coding.encoder, "chroma", quality >= 90 ? "444" : "420"), path: path)
        try checkWrite(heif_encoder_set_parameter_string(coding.encoder, "preset", "medium"), path: path)
        let picture = try pixels(of: image, deep: deep, path: path)
        if let icc = metadata.icc {
            try checkWrite(icc.withUnsafeBytes { heif_image_set_raw_color_profile(picture.raw, "prof", $0.baseAddress, $0.count) },
                           path: path)
        }
        var handle: OpaquePointer?
        try checkWrite(heif_context_encode_image(coding.context, picture.raw, coding.encoder, nil, &handle), path: path)
        guard let handle else { throw StackerError.writeFailed(path: path, reason: "HEIF encoding gave no image") }
        let encoded = HEIFImageHandle(handle)
        if let exif = metadata.exif {
            try checkWrite(exif.withUnsafeBytes { heif_context_add_exif_metadata(coding.context, encoded.raw, $0.baseAddress, Int32(clamping: $0.count)) },
                           path: path)
        }
        if let xmp = metadata.xmp {
            try checkWrite(xmp.withUnsafeBytes { heif_context_add_XMP_metadata(coding.context, encoded.raw, $0.baseAddress, Int32(clamping: $0.count)) },
                           path: path)
        }
        let output = HEIFOutput()
        var writer = heif_writer(writer_api_version: 1, write: { _, data, size, userdata in
            let output = Unmanaged<HEIFOutput>.fromOpaque(userdata!).takeUnretainedValue()
            if let data, size > 0 {
                output.bytes += UnsafeRawBufferPointer(start: data, count: size)
            }
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil)
        })
        let error = withExtendedLifetime(output) {
            heif_context_write(coding.context, &writer, Unmanaged.passUnretained(output).toOpaque())
        }
        try checkWrite(error, path: path)
        return output.bytes
    }

    /// `image` as an interleaved libheif RGB image: 8-bit, or 10-bit
    /// little-endian RRGGBB when `deep`; values clamped to 0…1, rounded
    /// (NaN as 0); a gray image's one plane repeated in R, G and B.
    private static func pixels(of image: Image, deep: Bool, path: String) throws -> HEIFDecodedImage {
        let width = image.width, height = image.height
        var raw: OpaquePointer?
        let chroma = deep ? heif_chroma_interleaved_RRGGBB_LE : heif_chroma_interleaved_RGB
        try checkWrite(heif_image_create(Int32(width), Int32(height), heif_colorspace_RGB, chroma, &raw), path: path)
        guard let raw else { throw StackerError.writeFailed(path: path, reason: "cannot allocate the HEIF image") }
        let picture = HEIFDecodedImage(raw)
        try checkWrite(heif_image_add_plane(raw, heif_channel_interleaved, Int32(width), Int32(height), deep ? 10 : 8),
                       path: path)
        var stride: Int32 = 0
        guard let base = heif_image_get_plane(raw, heif_channel_interleaved, &stride),
              Int(stride) >= width * (deep ? 6 : 3) else {
            throw StackerError.writeFailed(path: path, reason: "cannot allocate the HEIF image")
        }
        let rgb = image.channels == 3 ? image : Image(width: width, height: height, planes: Array(repeating: image.planes[0], count: 3))
        let rowBytes = width * (deep ? 6 : 3)
        func copyRows(_ samples: UnsafeRawBufferPointer) {
            for y in 0..<height {
                UnsafeMutableRawPointer(base + y * Int(stride))
                    .copyMemory(from: samples.baseAddress! + y * rowBytes, byteCount: rowBytes)
            }
        }
        if deep {
            // Little-endian 10-bit values in 16-bit words (RRGGBB_LE).
            PixelConversion.interleaved(rgb) { UInt16(PixelConversion.clamp($0) * 1023 + 0.5).littleEndian }
                .withUnsafeBytes(copyRows)
        } else {
            PixelConversion.interleaved8(rgb).withUnsafeBytes(copyRows)
        }
        return picture
    }

    /// Throws a libheif encoding error as `StackerError.writeFailed`, one line.
    private static func checkWrite(_ error: heif_error, path: String) throws {
        guard error.code != heif_error_Ok else { return }
        var text = (error.message.map { String(cString: $0) } ?? "")
            .split(whereSeparator: { $0 == "\n" || $0 == "\r" }).joined(separator: " ")
        if text.isEmpty { text = "libheif error \(error.code.rawValue)" }
        throw StackerError.writeFailed(path: path, reason: "HEIC encoding failed: \(text)")
    }
}
