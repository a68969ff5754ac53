/// Wall-clock seconds spent per stage. Per-frame stages (decode, register,
/// warp) are summed over frames, so with several threads they can exceed
/// `total`, which is the run's wall-clock time.
public struct StageTimings: Sendable, Equatable {
    /// Decoding input files.
    public var decode = 0.0
    /// Estimating transforms.
    public var register = 0.0
    /// Building master calibration frames and calibrating lights.
    public var calibrate = 0.0
    /// Resampling frames onto the reference grid.
    public var warp = 0.0
    /// Folding (average) or storing and reducing (robust kernels).
    public var stack = 0.0
    /// Encoding and writing the output (filled in by the caller).
    public var encode = 0.0
    /// The whole run, wall-clock.
    public var total = 0.0

    /// All zero.
    public init() {}

    /// Records the encode as the wall time since `start`, and adds it to `total`.
    public mutating func addEncode(since start: ContinuousClock.Instant) {
        encode = seconds(since: start)
        total += encode
    }
}
