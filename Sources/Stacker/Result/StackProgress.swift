/// A progress event from the pipeline: which stage, how far, which file.
/// The pipeline reports; the caller decides whether and how to show it.
public struct StackProgress: Sendable {
    /// Pipeline stages, in order.
    public enum Stage: String, Sendable {
        /// Decoding, registering and warping frames.
        case aligning = "aligning"
        /// Combining the stored frames (robust kernels).
        case combining = "combining"
    }
    /// The current stage.
    public var stage: Stage
    /// Units done so far in this stage.
    public var completed: Int
    /// Units in this stage.
    public var total: Int
    /// The file just finished, when there is one.
    public var path: String?
}
