/// Which calibration frames to apply to every light before registration,
/// and how to build masters from lists of raw calibration frames.
///
/// Each list holds either one master frame (used as is) or several raw
/// frames, which are combined into a master with `masterKernel`.
public struct CalibrationOptions: Sendable, Equatable {
    /// Bias (offset) frames: zero-length exposures, the sensor's read-out pedestal.
    public var bias: [FilePath] = []
    /// Dark frames: exposures as long as the lights with the cap on, holding
    /// bias plus dark current and hot pixels. A master dark whose background
    /// lies below half the bias level is taken as already bias-subtracted.
    public var dark: [FilePath] = []
    /// Flat frames: an evenly lit field through the same optics (vignetting,
    /// dust). They are bias-subtracted (when a bias is given) and normalised
    /// to mean 1 per channel.
    public var flat: [FilePath] = []
    /// Combines raw calibration frames into a master (default: sigma-clip,
    /// κ = 3, which rejects cosmic-ray hits and stays close to the mean's noise).
    public var masterKernel: RobustKernel = .sigmaClip
    /// Replace hot and cold pixels found in the master dark by the median
    /// of their good neighbours, in every light (`--cosmetic`).
    public var cosmetic = false
    /// A dark pixel further than this many robust σ from the dark's median
    /// is a defect (hot above, cold below).
    public var cosmeticSigma: Double = 5

    /// No calibration.
    public init() {}

    /// True when any calibration frame is given.
    public var isEmpty: Bool { bias.isEmpty && dark.isEmpty && flat.isEmpty }
}
