/// Errors raised by SceneGen. Writing errors from the image encoder arrive
/// as `StackerError` unchanged.
public enum SceneGenError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The config is out of range; the sentence names the field.
    case invalidConfig(reason: String)
    /// The output folder could not be created or a file in it written.
    case writeFailed(path: String, reason: String)

    /// `<file>: <reason>`, or just the reason when no file is involved.
    public var description: String {
        switch self {
        case .invalidConfig(let r): return r
        case .writeFailed(let p, let r): return "\(p): \(r)"
        }
    }
}
