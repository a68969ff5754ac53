/// Errors raised by the Stacker module. Each case carries the file it is
/// about (empty when none) and a human sentence; `description` prints
/// `<file>: <what is wrong>` as the CLI shows it.
public enum StackerError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A file could not be read or decoded.
    case unreadable(path: String, reason: String)
    /// A file could not be written.
    case writeFailed(path: String, reason: String)
    /// The request is inconsistent (sizes differ, output is an input, …).
    case invalidInput(path: String, reason: String)
    /// Registration or stacking could not produce a result.
    case stackingFailed(path: String, reason: String)
    /// The run was interrupted (SIGINT / SIGTERM).
    case interrupted

    /// The file the error is about ("" when none).
    public var path: String {
        switch self {
        case .unreadable(let p, _), .writeFailed(let p, _), .invalidInput(let p, _),
             .stackingFailed(let p, _):
            return p
        case .interrupted: return ""
        }
    }

    /// The sentence without the file name.
    public var reason: String {
        switch self {
        case .unreadable(_, let r), .writeFailed(_, let r), .invalidInput(_, let r),
             .stackingFailed(_, let r):
            return r
        case .interrupted: return "interrupted"
        }
    }

    /// `<file>: <reason>`, or just the reason when no file is involved.
    public var description: String { path.isEmpty ? reason : "\(path): \(reason)" }
}
