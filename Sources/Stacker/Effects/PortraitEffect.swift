internal import Registration

/// Applies a `DepthEffect` to a photo through a mask made from its depth
/// map or a portrait matte: the library face of `stack effect`.
public enum PortraitEffect {
    /// What applying an effect to one photo gave.
    public struct Outcome: Sendable {
        /// The photo with the effect (gray for `.mask`), upright.
        public var image: Image
        /// The photo's bit depth as read.
        public var bitDepth: Int
        /// The focus the mask was centred on (nil for a matte).
        public var focus: Float?
        /// Where the mask came from: a depth source, or `matte <name>`.
        public var maskSource: String
        /// The photo's EXIF and ICC profile, for the output.
        public var exif: [UInt8]?, iccProfile: [UInt8]?

        /// Encodes and atomically writes the image (format from the
        /// extension), with the photo's EXIF and ICC profile; `depth` nil
        /// keeps the photo's bit depth where the format allows; `threads`
        /// is the encoder's (JPEG strips).
        /// - Throws: `StackerError.invalidInput` or `.writeFailed` naming `path`.
        public func write(to path: some FilePathConvertible, quality: Int = 95, depth: Int? = nil,
                          threads: Int = Platform.processorCount) throws {
            let path = path.filePath
            let format = ImageFormat.fromExtension(of: path)
            let bits = format.map { $0.bitDepth(nearestTo: depth ?? bitDepth) } ?? 8
            var options = EncodeOptions(quality: quality, bitDepth: bits, exif: exif, threads: threads)
            // A gray mask is not in the photo's colour space.
            options.iccProfile = image.channels == 3 ? iccProfile : nil
            try ImageFile.write(image, to: path, options: options)
        }
    }

    /// Reads the photo at `path` and its depth (the side-car `depthMap` when
    /// given, else what the file embeds: `PortraitData.read`) and applies
    /// `options`. Nil when there is no depth (or not the matte asked for):
    /// the caller skips the file or fails.
    /// - Throws: `StackerError.unreadable` naming the photo or depth file;
    ///   `.invalidInput` for a background image that cannot be used.
    public static func apply(to path: some FilePathConvertible, depthMap: FilePath? = nil,
                             options: EffectOptions) throws -> Outcome? {
        let path = path.filePath
        // One read of the photo serves its pixels and its embedded depth.
        let bytes = try FileBytes.read(path)
        let decoded = try ImageFile.decode(bytes: bytes, path: path.description, maxPixels: options.maxPixels)
        let data = try depthMap.map { try PortraitData.sideCar($0, maxPixels: options.maxPixels) }
            ?? PortraitData.read(bytes: bytes, file: path, maxPixels: options.maxPixels)
        guard let (image, focus, source) = apply(to: decoded.image, data: data, options: options) else { return nil }
        return Outcome(image: image, bitDepth: decoded.bitDepth, focus: focus, maskSource: source,
                       exif: decoded.exif, iccProfile: decoded.iccProfile)
    }

    /// `options` applied to `image` with `data` (at any size: it is aligned
    /// to the photo here). Returns the result, the focus used (nil for a
    /// matte) and where the mask came from; nil when `data` lacks what the
    /// options need.
    public static func apply(to image: Image, data: PortraitData, options: EffectOptions)
        -> (image: Image, focus: Float?, maskSource: String)? {
        let needed: PortraitData
        if let matte = options.matte {
            guard let plane = data.mattes[matte] else { return nil }
            needed = PortraitData(nearness: nil, source: nil, mattes: [matte: plane])
        } else {
            guard let nearness = data.nearness else { return nil }
            needed = PortraitData(nearness: nearness, source: data.source)
        }
        let aligned = needed.aligned(to: image)
        var mask: Plane
        var focus: Float?
        var radius: Plane?
        let source: String
        if let matte = options.matte, let plane = aligned.mattes[matte] {
            mask = plane
            source = "matte \(matte.rawValue)"
        } else {
            let nearness = aligned.nearness!
            let f: Float
            switch options.focus {
            case .auto: f = EffectMask.autoFocus(nearness)
            case .value(let v): f = v
            }
            focus = f
            source = aligned.source?.rawValue ?? "depth"
            switch options.shape {
            case .band: mask = EffectMask.band(nearness, focus: f, width: options.width, slope: options.slope)
            case .highPass: mask = EffectMask.highPass(nearness, focus: f, slope: options.slope)
            }
            if options.effect == .blur {
                radius = DepthEffect.blurRadius(nearness: nearness, focus: f, width: options.width, image: image,
                                                settings: options.settings)
            }
        }
        if options.invert { mask = EffectMask.inverted(mask) }
        return (options.effect.apply(to: image, mask: mask, radius: radius, settings: options.settings), focus, source)
    }
}
