/// Everything that shapes a synthetic star-field session: the sky, the
/// optics, the sensor and how the mount moved between exposures.
///
/// Units: positions and shifts in pixels, angles in degrees, light and
/// noise in electrons (e⁻), sensor levels in ADU of a 16-bit converter
/// (0…65535; files store ADU / 65535 as our 0…1 samples).
///
/// A light frame is, per sensor pixel, before quantisation to whole ADU:
///
///     ADU = bias + (flat · (sky + stars + trail) + dark) / gain + noise
///
/// with Poisson noise on the electrons (a Gaussian of the same variance)
/// plus Gaussian read noise, clipped to 0…65535.
public struct StarFieldConfig: Sendable, Equatable {
    /// Frame width in pixels.
    public var width = 1024
    /// Frame height in pixels.
    public var height = 768
    /// Number of light frames.
    public var frameCount = 12
    /// Seed of every random choice; a session is a pure function of its config.
    public var seed: UInt64 = 1
    /// 1 (mono sensor) or 3 (RGB: stars get colours, the sky a tint).
    public var channels = 1

    /// Stars per square pixel of sky (2 per 10 000 px² gives about 160 on a
    /// 1024 × 768 frame).
    public var starDensity = 2.0e-4
    /// Total flux of a star in e⁻ per exposure: a power law with more faint
    /// stars than bright ones (N(>F) ∝ F^−1.2) between these bounds. The
    /// brightest peak well below saturation at the default FWHM.
    public var starFlux: ClosedRange<Double> = 1_500...250_000
    /// Full width at half maximum of the Gaussian PSF in pixels, drawn per
    /// frame in this range (seeing changes); a single value keeps it fixed.
    public var fwhm: ClosedRange<Double> = 2.8...2.8

    /// Sky background in e⁻ per pixel in the reference frame.
    public var skyLevel = 600.0
    /// Frame-to-frame change of the sky level: uniform in ±this fraction
    /// (the reference keeps `skyLevel`).
    public var skyVariation = 0.15
    /// Linear sky gradient: the level changes by this fraction across the
    /// frame (fixed on the sky, so it turns with the stars).
    public var skyGradient = 0.2

    /// Conversion gain in e⁻ per ADU.
    public var gain = 1.0
    /// Read noise in e⁻ (Gaussian, every frame).
    public var readNoise = 6.0
    /// Bias pedestal in ADU.
    public var biasLevel = 1_000.0
    /// Mean dark current in e⁻ per pixel per light exposure (darks match the lights).
    public var darkCurrent = 80.0
    /// Hot pixels: fixed sensor positions with extra dark current.
    public var hotPixelCount = 40
    /// Extra dark current of a hot pixel, e⁻ per exposure.
    public var hotPixelCurrent: ClosedRange<Double> = 4_000...30_000

    /// Vignetting: the flat falls from 1 at the centre to `1 − vignetting`
    /// at the corners (quadratically in the radius).
    public var vignetting = 0.35
    /// Flat frames' level at the centre, in e⁻.
    public var flatLevel = 25_000.0
    /// Number of bias, dark and flat frames each (0: none are made).
    public var calibrationFrames = 8

    /// Mount drift / dithering: shifts uniform in ±this many pixels.
    public var maxShift = 30.0
    /// Field rotation: angles uniform in ±this many degrees.
    public var maxRotation = 2.0
    /// Scale change: uniform in ±this fraction (focus, refraction).
    public var maxScale = 0.0
    /// A satellite trail across the middle frame.
    public var trail = true
    /// The trail's surface brightness in e⁻ per pixel on its axis.
    public var trailBrightness = 6_000.0
    /// The trail's full width in pixels.
    public var trailWidth = 2.0

    /// The documented defaults.
    public init() {}

    /// The frame that carries the satellite trail, if any: the middle one
    /// (never the reference, frame 0, when there are two or more frames).
    public var trailFrame: Int? {
        guard trail, frameCount > 0 else { return nil }
        return frameCount == 1 ? 0 : max(1, frameCount / 2)
    }

    /// Checks every field against its range.
    /// - Throws: `SceneGenError.invalidConfig` naming the first bad field.
    public func validate() throws {
        func check(_ ok: Bool, _ reason: @autoclosure () -> String) throws {
            if !ok { throw SceneGenError.invalidConfig(reason: reason()) }
        }
        try check(width >= 16 && height >= 16, "width and height must be at least 16, got \(width)×\(height)")
        try check(width <= 60_000 && height <= 60_000 && width * height <= 400_000_000,
                  "a frame of \(width)×\(height) is too large (at most 400 megapixels)")
        try check(frameCount >= 1 && frameCount <= 100_000, "frames must be 1…100000, got \(frameCount)")
        try check(channels == 1 || channels == 3, "channels must be 1 or 3, got \(channels)")
        try check(starDensity >= 0 && starDensity <= 0.01, "star density must be 0…0.01 per px², got \(starDensity)")
        try check(starFlux.lowerBound > 0 && starFlux.upperBound.isFinite, "star flux must be positive, got \(starFlux)")
        try check(fwhm.lowerBound >= 0.8 && fwhm.upperBound <= 30, "FWHM must be 0.8…30 px, got \(fwhm)")
        try check(skyLevel >= 0 && skyLevel.isFinite, "sky level must be ≥ 0, got \(skyLevel)")
        try check((0..<1).contains(skyVariation), "sky variation must be 0…1, got \(skyVariation)")
        try check(abs(skyGradient) < 1, "sky gradient must be within ±1, got \(skyGradient)")
        try check(gain > 0 && gain.isFinite, "gain must be positive, got \(gain)")
        try check(readNoise >= 0 && darkCurrent >= 0 && biasLevel >= 0 && biasLevel < 60_000,
                  "read noise, dark current and bias must be ≥ 0 (bias < 60000 ADU)")
        try check(hotPixelCount >= 0 && hotPixelCount <= width * height / 10, "too many hot pixels: \(hotPixelCount)")
        try check((0..<1).contains(vignetting), "vignetting must be 0…1, got \(vignetting)")
        try check(flatLevel > 0 && flatLevel < 60_000 * gain, "flat level must be positive and below saturation")
        try check(calibrationFrames >= 0 && calibrationFrames <= 1_000, "calibration frames must be 0…1000")
        try check(maxShift >= 0 && maxShift <= Double(min(width, height)) / 4,
                  "max shift must be 0…\(min(width, height) / 4) px, got \(maxShift)")
        try check(maxRotation >= 0 && maxRotation <= 45, "max rotation must be 0…45°, got \(maxRotation)")
        try check(maxScale >= 0 && maxScale <= 0.1, "max scale change must be 0…0.1, got \(maxScale)")
        try check(trailWidth > 0 && trailBrightness >= 0, "the trail needs a positive width")
    }
}
