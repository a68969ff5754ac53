/// A robust stacking kernel: one that needs every frame's sample of a pixel at
/// once, so its input is kept in a `FrameStore` and reduced in row strips.
///
/// The per-pixel functions behind each case are pure and separately usable:
/// `Median`, `ModeCluster`, `SigmaClip` and `RejectionAlgorithm`. All values are on the 0…1 scale.
public enum RobustKernel: Sendable, Equatable {
    /// The exact median of the covered samples of each channel (even count:
    /// mean of the two middle ones). Frame weights are ignored.
    case median
    /// The densest colour cluster of the samples (all channels together,
    /// Chebyshev distance ≤ `tolerance` on the 0…1 scale); the output is the
    /// weighted mean of that cluster. See `ModeCluster`.
    case mode(tolerance: Float)
    /// Iterative κ-σ clipping around the median with σ = 1.4826 · MAD, per
    /// channel; the output is the weighted mean of the kept samples.
    /// See `SigmaClip`.
    case sigmaClip(kappaLow: Float, kappaHigh: Float, maxIterations: Int)
    /// One of the rejection family, per channel; the output is the weighted
    /// mean of the kept samples. Reduced one pixel at a time (a sort per
    /// pixel and channel). See `RejectionAlgorithm`.
    case rejection(RejectionAlgorithm)
    /// The weighted mean of every covered sample, from the store: the
    /// average of a run that drops frames after they are stored (`--keep`).
    /// Per pixel and channel, in input order, in doubles.
    case mean
    /// The motion-robust average (`--mode average --robust`): the weighted
    /// mean with Tukey's biweight around the median, tuning constant `c`.
    /// Per pixel and channel. See `TukeyMean`.
    case tukeyMean(c: Float)

    /// Mode with the default tolerance (`ModeCluster.defaultTolerance`).
    public static var mode: RobustKernel { .mode(tolerance: ModeCluster.defaultTolerance) }

    /// Sigma-clip with the defaults κlow = κhigh = 3 and 5 iterations.
    public static var sigmaClip: RobustKernel {
        .sigmaClip(kappaLow: SigmaClip.defaultKappa, kappaHigh: SigmaClip.defaultKappa,
                   maxIterations: SigmaClip.defaultMaxIterations)
    }

    /// Checks the parameters; `nil` when valid, else a sentence saying what is wrong.
    public var invalidReason: String? {
        switch self {
        case .median, .mean:
            return nil
        case .mode(let tolerance):
            guard tolerance.isFinite, tolerance > 0 else {
                return "the mode tolerance must be a positive number, got \(tolerance)"
            }
            return nil
        case .sigmaClip(let low, let high, let iterations):
            guard low.isFinite, low > 0, high.isFinite, high > 0 else {
                return "kappa must be a positive number, got low \(low), high \(high)"
            }
            guard iterations >= 0 else {
                return "the sigma-clip iteration count must be 0 or more, got \(iterations)"
            }
            return nil
        case .rejection(let algorithm):
            return algorithm.invalidReason
        case .tukeyMean(let c):
            guard c.isFinite, c > 0 else { return "the robust average's tuning constant must be positive, got \(c)" }
            return nil
        }
    }
}
