public import Registration

/// How frames are combined, per output pixel, over the frames that cover it.
public enum StackMode: String, Sendable, CaseIterable {
    /// Weighted mean, folded one frame at a time (streaming).
    case average
    /// Per-pixel median.
    case median
    /// Mean of the densest cluster of samples.
    case mode
    /// Weighted mean after iterative κ·σ rejection around the median.
    case sigmaClip = "sigma-clip"
}

/// How frames are aligned to the reference.
public enum Alignment: String, Sendable, CaseIterable {
    /// Subpixel phase-correlation translation.
    case translation
    /// No alignment: frames are stacked as they are.
    case none
}

/// Everything that shapes one stacking run. Defaults follow DESIGN.md.
public struct StackOptions: Sendable {
    /// The combination kernel (default `.average`).
    public var mode: StackMode = .average
    /// The alignment model (default `.translation`).
    public var alignment: Alignment = .translation
    /// Index of the reference frame in the input list (default 0).
    public var referenceIndex: Int = 0
    /// Frames whose registration score is below this are not stacked.
    public var minimumScore: Double = TranslationOptions.defaultMinimumScore
    /// Interpolator used to warp frames onto the reference grid.
    public var interpolation: Interpolation = .bicubic
    /// Worker threads for decoding, registration and warping (≥ 1).
    public var threads: Int = defaultThreadCount
    /// Memory the robust kernels' frame store may use before spilling to disk, in bytes.
    public var memoryLimit: Int = 2 << 30
    /// Folder for the frame store's temporary file.
    public var temporaryDirectory: String = "."

    /// Options with the documented defaults.
    public init() {}

    /// The number of online processors (at least 1).
    public static var defaultThreadCount: Int { max(1, ProcessInfoShim.activeProcessorCount) }
}
