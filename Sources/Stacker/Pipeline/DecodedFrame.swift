import Registration

/// A frame as the pipeline holds it from decode to warp. JPEG frames stay
/// 8-bit (36 MB for 12 MP RGB instead of 144 MB of floats, and no
/// conversion pass), as RGB planes or, for the average, median and
/// sigma-clip, as the file's own Y, Cb, Cr planes; the translation warp
/// reads the bytes directly.
/// Everything else, and any frame that is calibrated or normalised, is
/// decoded to floats.
struct DecodedFrame: Sendable {
    /// The samples: floats, or bytes standing for `v / 255`.
    enum Pixels: Sendable {
        case floats(Image)
        case bytes(ByteImage)
        case ycbcr(YCbCrImage)
    }

    /// The form the pipeline asks for; a file that cannot give it comes as
    /// RGB bytes (a JPEG) or floats.
    enum Form: Sendable, Equatable {
        /// Floats, for calibration and normalisation.
        case floats
        /// RGB bytes, for the frame store of the robust kernels.
        case bytes
        /// Y, Cb, Cr as the JPEG stores them, with chroma shrunk by the
        /// given factor (nil: whatever the file has, 1 or 2).
        case ycbcr(factor: Int?)
    }

    /// The samples, already turned upright.
    var pixels: Pixels
    /// Bits per sample in the file (see `DecodedImage.bitDepth`).
    var bitDepth: Int
    /// The EXIF payload with its orientation reset to 1, or nil.
    var exif: [UInt8]?
    /// FITS keywords to carry to the output.
    var keywords: [FITSKeyword]
    /// The CFA pattern its file gives a one-channel mosaic (see
    /// `DecodedImage.cfa`); nil once debayered, and for other frames.
    var cfa: BayerPattern? = nil
    /// The file's ICC profile, XMP packet and IPTC block (see `DecodedImage`).
    var iccProfile: [UInt8]? = nil
    var xmp: [UInt8]? = nil
    var iptc: [UInt8]? = nil
    /// Whether the pixels were converted into the reference's colour
    /// profile (`convertColour`).
    var colourConverted = false
    /// A camera raw's colour and capture facts (see `DecodedImage.raw`).
    var raw: RAWMetadata? = nil
    /// Integer FITS data's stored range (see `DecodedImage.storedRange`).
    var storedRange: ClosedRange<Double>? = nil

    /// Decodes `source` in `form` when it can (see `Form`); an image in
    /// memory comes as it is (floats, 32-bit).
    /// - Throws: `StackerError.unreadable` naming the file.
    static func load(_ source: FrameSource, maxPixels: Int, form: Form) throws -> DecodedFrame {
        switch source {
        case .file(let path): return try read(path, maxPixels: maxPixels, form: form)
        case .frameInFile(let path, let index):
            let decoded = try ImageFile.readFrame(index, of: path, maxPixels: maxPixels)
            return DecodedFrame(decoded)
        case .image(let image, _): return DecodedFrame(pixels: .floats(image), bitDepth: 32, exif: nil, keywords: [])
        }
    }

    /// Reads the image at `path` in `form` when it can (see `Form`),
    /// anything else as `ImageFile.read` decodes it.
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func read(_ path: FilePath, maxPixels: Int, form: Form) throws -> DecodedFrame {
        let file = try FileBytes.read(path)
        let path = path.description
        if form != .floats, ImageFormat.fromMagic(file) == .jpeg {
            let metadata = JPEGMetadata(file)
            let exif = EXIF.read(payload: metadata.exif)
            let pixels: Pixels
            if case .ycbcr(let factor) = form,
               let decoded = try JPEGCodec.decodeYCbCr(file, path: path, maxPixels: maxPixels, factor: factor) {
                pixels = .ycbcr(Orientation.apply(exif.orientation, to: decoded))
            } else {
                pixels = .bytes(Orientation.apply(exif.orientation, to: try JPEGCodec.decodeBytes(file, path: path, maxPixels: maxPixels)))
            }
            return DecodedFrame(pixels: pixels, bitDepth: 8, exif: exif.tiff, keywords: [],
                                iccProfile: metadata.embedded.icc, xmp: metadata.embedded.xmp,
                                iptc: metadata.embedded.iptc)
        }
        let decoded = try ImageFile.decode(bytes: file, path: path, maxPixels: maxPixels)
        return DecodedFrame(decoded)
    }


    /// Debayers a one-channel mosaic into R, G, B with `method`, when
    /// `choice` gives it a pattern (the file's, or `--cfa`'s); anything
    /// else is left as it is. Runs after calibration, which works on the
    /// mosaic. `whiteBalance` multiplies the mosaic's colours before the
    /// debayer and, for a camera raw, applies its matrix after (`RawColour`);
    /// `referenceBalance` is the run's reference frame's as-shot balance,
    /// which `.camera` uses for every raw.
    mutating func debayer(_ choice: CFAChoice, method: DebayerMethod, whiteBalance: WhiteBalance,
                          referenceBalance: [Float]?) {
        defer { cfa = nil }
        guard channels == 1, let pattern = choice.resolve(cfa) else { return }
        var mosaic = image.planes[0]
        let multipliers = RawColour.multipliers(whiteBalance, mosaic: mosaic, pattern: pattern, raw: raw,
                                                reference: referenceBalance)
        if let multipliers { mosaic = RawColour.balanced(mosaic, pattern: pattern, multipliers: multipliers) }
        image = Debayer.image(mosaic, pattern: pattern, method: method)
        if multipliers != nil, let matrix = raw?.cameraToSRGB, matrix.count == 9 {
            image = RawColour.transformed(image, matrix: matrix)
        }
    }

    /// Width in pixels.
    var width: Int {
        switch pixels {
        case .floats(let image): return image.width
        case .bytes(let image): return image.width
        case .ycbcr(let image): return image.width
        }
    }

    /// Height in pixels.
    var height: Int {
        switch pixels {
        case .floats(let image): return image.height
        case .bytes(let image): return image.height
        case .ycbcr(let image): return image.height
        }
    }

    /// Number of channels (1 or 3).
    var channels: Int {
        switch pixels {
        case .floats(let image): return image.channels
        case .bytes(let image): return image.channels
        case .ycbcr: return 3
        }
    }

    /// The samples as floats; setting it replaces bytes with floats.
    var image: Image {
        get {
            switch pixels {
            case .floats(let image): return image
            case .bytes(let image): return image.floats
            case .ycbcr(let image): return image.rgb
            }
        }
        set { pixels = .floats(newValue) }
    }

    /// The luma to register and measure, and its copy shrunk by `factor`
    /// (nil for `factor` ≤ 1). A Y, Cb, Cr frame's Y (the JPEG's own Rec. 601
    /// luma) stays bytes: no 48 MB float copy of a 12 MP frame is made for
    /// registration (see `SamplePlane`). Other frames give the float Rec. 601
    /// luma (see `Image.luma(downsampledBy:)`).
    func luma(downsampledBy factor: Int) -> (luma: Luma, small: Plane?) {
        let made: (luma: Plane, small: Plane)
        switch pixels {
        case .floats(let image): made = image.luma(downsampledBy: factor)
        case .bytes(let image): made = image.luma(downsampledBy: factor)
        case .ycbcr(let image): return (.bytes(image.luma), factor > 1 ? image.luma.downsampled(by: factor) : nil)
        }
        return (.floats(made.luma), factor > 1 ? made.small : nil)
    }

    /// A frame's luma as registration reads it.
    enum Luma: Sendable {
        /// Float samples.
        case floats(Plane)
        /// 8-bit samples standing for `v / 255` (a JPEG's Y).
        case bytes(BytePlane)

        /// The luma as floats (a conversion for `bytes`).
        var floatPlane: Plane {
            switch self {
            case .floats(let plane): return plane
            case .bytes(let plane): return plane.floats
            }
        }
    }

    /// The frame made ready to be warped by `transform` (and `field`, when
    /// aligned locally) onto a `width × height` grid, in RGB; a near-identity
    /// projective transform in two 1-D passes (`RowWarper.resamplingInTwoPasses`).
    func rowWarper(by transform: Transform, field: DisplacementField? = nil, width: Int, height: Int,
                   interpolation: Interpolation) -> RowWarper? {
        switch pixels {
        case .floats(let image):
            return RowWarper(image.planes, by: transform, field: field, width: width, height: height,
                             interpolation: interpolation)?.resamplingInTwoPasses()
        case .bytes(let image):
            return RowWarper(image.planes, by: transform, field: field, width: width, height: height,
                             interpolation: interpolation)?.resamplingInTwoPasses()
        case .ycbcr(let image):
            return RowWarper(image.rgb.planes, by: transform, field: field, width: width, height: height,
                             interpolation: interpolation)?.resamplingInTwoPasses()
        }
    }

    /// The frame made ready to be warped by `transform` onto a `width ×
    /// height` grid as Y, and onto the grid shrunk by `factor` as Cb, Cr
    /// (see `YCbCrImage`). A frame stored in another form is converted
    /// (`YCbCr.split`). Near-identity projective transforms run in two
    /// passes, as in `rowWarper`.
    func ycbcrWarpers(by transform: Transform, field: DisplacementField? = nil, width: Int, height: Int, factor: Int,
                      interpolation: Interpolation) -> (luma: RowWarper?, chroma: RowWarper?) {
        let chromaTransform = YCbCr.chromaTransform(transform, factor: factor)
        let chromaField = field?.shrunk(by: factor)
        let (cw, ch) = (width / factor, height / factor)
        if case .ycbcr(let image) = pixels, image.chromaFactor == factor {
            return (RowWarper([image.luma], by: transform, field: field, width: width, height: height,
                              interpolation: interpolation)?.resamplingInTwoPasses(),
                    RowWarper(image.chroma, by: chromaTransform, field: chromaField, width: cw, height: ch,
                              interpolation: interpolation)?.resamplingInTwoPasses())
        }
        let (luma, chroma) = YCbCr.split(image, factor: factor)
        return (RowWarper([luma], by: transform, field: field, width: width, height: height,
                          interpolation: interpolation)?.resamplingInTwoPasses(),
                RowWarper(chroma, by: chromaTransform, field: chromaField, width: cw, height: ch,
                          interpolation: interpolation)?.resamplingInTwoPasses())
    }
}

extension DecodedFrame {
    /// A decoded file's pixels as floats, with everything it carries.
    init(_ decoded: DecodedImage) {
        self.init(pixels: .floats(decoded.image), bitDepth: decoded.bitDepth, exif: decoded.exif,
                  keywords: decoded.keywords, cfa: decoded.cfa, iccProfile: decoded.iccProfile,
                  xmp: decoded.xmp, iptc: decoded.iptc, raw: decoded.raw, storedRange: decoded.storedRange)
    }
}
