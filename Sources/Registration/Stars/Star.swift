/// A star measured on a plane by `StarDetector`.
///
/// Coordinates: pixel centres at integer coordinates, origin top-left,
/// x to the right, y down (the `Plane` convention). Intensities are in the
/// plane's sample units (Stacker: 0…1) above the local sky background.
public struct Star: Sendable, Equatable {
    /// Centroid column in pixels: the Gaussian-weighted centroid (weight
    /// matched to the star's own width), subpixel.
    public var x: Double
    /// Centroid row in pixels, subpixel.
    public var y: Double
    /// Total flux above the background, in sample units × pixels: the
    /// matched Gaussian-weighted sum scaled to the whole profile (exact for
    /// a Gaussian star, close to an aperture sum for real ones).
    public var flux: Double
    /// Full width at half maximum in pixels of the equivalent circular
    /// Gaussian (geometric mean of the two axes), with the pixel's own
    /// width (box variance 1/12 px²) removed, i.e. the optical profile.
    public var fwhm: Double
    /// The brightest pixel's value above the local background, sample units.
    public var peak: Double
    /// Signal-to-noise ratio of the matched-filter flux against the sky
    /// noise only (the star's own shot noise is not known without the
    /// gain, so bright stars read higher than their true SNR).
    public var snr: Double
    /// Ratio of the major to the minor axis (≥ 1; 1 = round), from the
    /// deconvolved second moments.
    public var elongation: Double
    /// True when the star's core reaches the saturation level or is flat
    /// topped: its flux and FWHM are then underestimated/overestimated and
    /// its centroid less precise. Only returned with
    /// `StarDetectionOptions.includeSaturated`.
    public var isSaturated: Bool

    /// Minor over major axis, 1 / `elongation` (1 = round, toward 0 for a
    /// trail); Siril calls the same ratio roundness.
    public var roundness: Double { elongation >= 1 && elongation.isFinite ? 1 / elongation : 0 }

    /// Creates a star record.
    public init(x: Double, y: Double, flux: Double, fwhm: Double, peak: Double, snr: Double, elongation: Double = 1,
                isSaturated: Bool = false) {
        self.x = x
        self.y = y
        self.flux = flux
        self.fwhm = fwhm
        self.peak = peak
        self.snr = snr
        self.elongation = elongation
        self.isSaturated = isSaturated
    }
}
