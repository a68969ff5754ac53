/// The JSON report of a `stack effect` run: the effect, and per photo its
/// output, the focus and where the mask came from, or why it was skipped
/// or failed.
public struct EffectReport: Sendable {
    /// What became of one photo.
    public enum Entry: Sendable {
        /// Written to `output`.
        case written(photo: String, output: String, focus: Float?, maskSource: String)
        /// Left out with a warning (no depth data).
        case skipped(photo: String, reason: String)
        /// Failed with an error.
        case failed(photo: String, error: String)
    }

    /// The effect applied.
    public var effect: DepthEffect
    /// One entry per photo, in input order.
    public var entries: [Entry]

    public init(effect: DepthEffect, entries: [Entry]) {
        self.effect = effect
        self.entries = entries
    }

    /// `{"effect": …, "photos": [{"photo": …, "output": …, "focus": …,
    /// "maskSource": …} | {"photo": …, "skipped": …} | {"photo": …, "error": …}]}`;
    /// focus is null for a matte.
    public var json: String {
        let photos = entries.map { entry -> String in
            let fields: [(String, String)]
            switch entry {
            case .written(let photo, let output, let focus, let source):
                fields = [("photo", JSONText.string(photo)), ("output", JSONText.string(output)),
                          ("focus", focus.map { JSONText.number(Double($0)) } ?? "null"),
                          ("maskSource", JSONText.string(source))]
            case .skipped(let photo, let reason):
                fields = [("photo", JSONText.string(photo)), ("skipped", JSONText.string(reason))]
            case .failed(let photo, let error):
                fields = [("photo", JSONText.string(photo)), ("error", JSONText.string(error))]
            }
            return "    {" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
        }
        return "{\n  \"effect\": \(JSONText.string(effect.rawValue)),\n  \"photos\": [\n"
            + photos.joined(separator: ",\n") + "\n  ]\n}\n"
    }

    /// Writes the report atomically to `path`.
    /// - Throws: `StackerError.writeFailed` naming `path`.
    public func write(to path: some FilePathConvertible) throws {
        try AtomicFile.write(Array(json.utf8), to: path)
    }
}
