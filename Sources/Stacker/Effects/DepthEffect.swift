public import Registration

/// The effects `stack effect` applies: each blends the photo with a filtered
/// version of it through a mask (1 = keep the photo, 0 = the filtered one),
/// so where the mask is 1 the photo is unchanged.
public enum DepthEffect: String, Sendable, CaseIterable {
    /// Darken outside the mask (the filtered version is the photo × (1 − strength)).
    case spotlight
    /// Colour inside the mask, monochrome (Rec. 601 luma) outside.
    case highlight
    /// Depth of field: outside the mask a blur whose radius grows with the
    /// distance from the focus band, without the subject bleeding into it.
    case blur
    /// A posterised, edge-inked background behind the sharp subject.
    case comic
    /// The subject over a flat colour or a background image.
    case greenscreen
    /// The mask itself, as a gray image.
    case mask

    /// How strongly and with what an effect is applied.
    public struct Settings: Sendable {
        /// Spotlight: how much the background is darkened (0 none, 1 black).
        public var strength: Float = 0.75
        /// Blur: the largest radius in pixels; nil for 1.5 % of the photo's
        /// longer side.
        public var blurRadius: Float?
        /// Blur: the distance in nearness (beyond the band) at which the
        /// radius reaches its largest.
        public var fullBlurDistance: Float = 0.3
        /// Comic: levels per channel the background is posterised to.
        public var posterLevels: Int = 5
        /// Comic: the luma gradient (Sobel magnitude, 0…1 samples) above
        /// which a pixel is inked black.
        public var inkThreshold: Float = 0.25
        /// Greenscreen: the flat colour (R, G, B in 0…1).
        public var colour: (Float, Float, Float) = (0, 1, 0)
        /// Greenscreen: a background image used instead of the colour
        /// (resized to the photo when its size differs).
        public var background: Image?

        public init() {}
    }

    /// `image` with this effect applied through `mask` (same size).
    /// `radius` is the blur's per-pixel radius in pixels (see
    /// `blurRadius(nearness:focus:width:settings:)`); only `blur` reads it.
    public func apply(to image: Image, mask: Plane, radius: Plane? = nil, settings: Settings = Settings()) -> Image {
        precondition(mask.width == image.width && mask.height == image.height,
                     "mask \(mask.width)×\(mask.height) does not match the photo \(image.width)×\(image.height)")
        switch self {
        case .mask:
            return Image(width: image.width, height: image.height, planes: [mask])
        case .spotlight:
            let keep = 1 - settings.strength
            return blend(image, mask: mask) { _, _, v in v * keep }
        case .highlight:
            let gray = image.luma
            return blend(image, mask: mask) { i, _, _ in gray.pixels[i] }
        case .blur:
            let r = radius ?? Plane(width: image.width, height: image.height,
                                    repeating: Self.largestRadius(image, settings))
            return DepthOfFieldBlur.composited(image, radius: r, subject: mask)
        case .comic:
            let comic = ComicStyle.rendered(image, levels: settings.posterLevels, inkThreshold: settings.inkThreshold)
            return blend(image, mask: mask) { i, c, _ in comic.planes[c].pixels[i] }
        case .greenscreen:
            if let background = settings.background {
                let planes = (0..<image.channels).map { c in
                    background.planes[min(c, background.channels - 1)].bilinearResized(width: image.width, height: image.height)
                }
                return blend(image, mask: mask) { i, c, _ in planes[c].pixels[i] }
            }
            let colour = [settings.colour.0, settings.colour.1, settings.colour.2]
            return blend(image, mask: mask) { _, c, _ in colour[min(c, 2)] }
        }
    }

    /// The blur radius at each pixel: the largest radius times the
    /// distance of its nearness from the focus band (|d − focus| − width/2,
    /// at least 0) over `settings.fullBlurDistance`, at most 1.
    public static func blurRadius(nearness: Plane, focus: Float, width: Float, image: Image,
                                  settings: Settings = Settings()) -> Plane {
        let largest = largestRadius(image, settings)
        return Plane(width: nearness.width, height: nearness.height, pixels: nearness.pixels.map { d in
            largest * min(1, max(0, abs(d - focus) - width / 2) / settings.fullBlurDistance)
        })
    }

    static func largestRadius(_ image: Image, _ settings: Settings) -> Float {
        settings.blurRadius ?? max(1, 0.015 * Float(max(image.width, image.height)))
    }

    /// mask · photo + (1 − mask) · filtered, where `filtered(i, c, v)` gives
    /// the filtered value of pixel `i` in channel `c` whose photo value is `v`.
    private func blend(_ image: Image, mask: Plane, _ filtered: (Int, Int, Float) -> Float) -> Image {
        var out = image
        for c in 0..<image.channels {
            let source = image.planes[c].pixels
            out.planes[c].pixels = source.indices.map { i in
                let m = mask.pixels[i], v = source[i]
                return m >= 1 ? v : m * v + (1 - m) * filtered(i, c, v)
            }
        }
        return out
    }
}
