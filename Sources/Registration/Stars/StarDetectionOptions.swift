/// Tunable constants of star detection (`StarDetector`).
///
/// Defaults were chosen on the synthetic star fields of
/// `StarAlignmentTests` (Gaussian stars, FWHM 2.5–3.5 px, sky-limited
/// Poisson noise, 16-bit steps, hot pixels, a satellite trail); see the doc
/// comment of each property.
public struct StarDetectionOptions: Sendable, Equatable {
    /// Side, in pixels, of the cells of the background mesh. Each cell's
    /// sky level and noise are the sigma-clipped median and 1.4826 · MAD of
    /// a regular subsample of its pixels; the mesh is 3 × 3 median filtered
    /// and interpolated bilinearly between cell centres. Default 64: small
    /// enough to follow a light-pollution gradient, large enough that one
    /// bright star does not lift a cell's median (and the median filter
    /// removes the cells it does).
    public var backgroundCellSize: Int
    /// Detection threshold: a pixel must exceed the local background by this
    /// many local noise σ to seed a star (and be the maximum of its 3 × 3
    /// neighbourhood). Default 5: at FWHM 3 px a star of SNR 20 peaks at
    /// ≈ 9 σ, while pure Gaussian noise exceeds 5 σ at only 3 · 10⁻⁷ of the
    /// pixels (the few that do are then rejected by the shape tests).
    public var detectionSigma: Double
    /// Stars narrower than this FWHM, in pixels, are rejected as hot pixels
    /// or cosmic-ray hits. Default 1.0 (a single bright pixel measures ≈ 0).
    public var minimumFWHM: Double
    /// Stars wider than this FWHM, in pixels, are rejected (galaxies, nebula
    /// knots, defocused blobs, measurement run-away). Default 12.
    public var maximumFWHM: Double
    /// Stars whose major/minor axis ratio exceeds this are rejected: trailed
    /// stars, satellite and aircraft trails, blended pairs. Default 1.6 (a
    /// round star at SNR 10 measures below ≈ 1.3).
    public var maximumElongation: Double
    /// Stars with any pixel in their 3 × 3 core at or above this sample
    /// value are rejected as saturated (their centroid is biased by the
    /// clipped top). Default 0.99, for planes scaled 0…1.
    public var saturationLevel: Double
    /// Stars whose centroid is within this many pixels of an edge are
    /// rejected (their profile is cut). Default 8.
    public var borderMargin: Int
    /// A star whose centroid lies within this many FWHM of a brighter star
    /// is dropped (a second maximum of the same star, or a companion whose
    /// light would bias both centroids). Default 1.5.
    public var minimumSeparation: Double
    /// At most this many stars are returned: the brightest by flux.
    /// Default 500 (plenty for a well-determined fit; matching and fitting
    /// cost grows with it).
    public var maximumStars: Int
    /// Also return saturated stars (flagged `isSaturated`, at most
    /// `StarDetector.maximumSaturated` of them, on top of `maximumStars`
    /// unsaturated ones) instead of rejecting them. Default false.
    /// `StarRegistrar` turns it on: the brightest stars are the most stable
    /// pattern between frames, and which stars saturate changes with the
    /// seeing, so leaving them out would change the brightest-star list.
    public var includeSaturated: Bool

    /// Options with the documented defaults; values are clamped to sane
    /// ranges (`backgroundCellSize` ≥ 8, `detectionSigma` > 0,
    /// `maximumFWHM` > `minimumFWHM` ≥ 0, `maximumElongation` ≥ 1,
    /// `borderMargin` ≥ 1, `maximumStars` ≥ 1).
    public init(backgroundCellSize: Int = 64, detectionSigma: Double = 5, minimumFWHM: Double = 1.0,
                maximumFWHM: Double = 12, maximumElongation: Double = 1.6, saturationLevel: Double = 0.99,
                borderMargin: Int = 8, minimumSeparation: Double = 1.5, maximumStars: Int = 500,
                includeSaturated: Bool = false) {
        self.backgroundCellSize = max(8, backgroundCellSize)
        self.detectionSigma = detectionSigma > 0 ? detectionSigma : 5
        self.minimumFWHM = max(0, minimumFWHM)
        self.maximumFWHM = max(self.minimumFWHM + 0.5, maximumFWHM)
        self.maximumElongation = max(1, maximumElongation)
        self.saturationLevel = saturationLevel
        self.borderMargin = max(1, borderMargin)
        self.minimumSeparation = max(0, minimumSeparation)
        self.maximumStars = max(1, maximumStars)
        self.includeSaturated = includeSaturated
    }
}
