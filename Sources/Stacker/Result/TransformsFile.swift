public import Registration

/// Per-frame transforms given instead of registering: a run's JSON report
/// read back (`--transforms run.json`), or a hand-written file of the same
/// shape. Feeding a run's report to a run over the same frames with the
/// same options gives byte-identical output.
///
/// The file is an object with `frames`, an array with one entry per input
/// frame, in input order, each holding either `transform` (three rows of
/// three numbers, mapping the frame's pixel coordinates to the
/// reference's) or `dx` and `dy` (a translation). An entry with `"used":
/// false` is left out of the stack, with its `reason`. `reference`, when
/// present, is the reference frame's index. `first`, when present, is the
/// index of the first entry's frame: a slice of the burst registered apart
/// (`stack register --frames a:b`); the slices of one burst concatenate
/// (`read(_:)` of several files).
public struct TransformsFile: Sendable, Equatable {
    /// One frame's entry.
    public struct Entry: Sendable, Equatable {
        /// The frame's path as the file names it (informative; frames are
        /// matched by position).
        public var path: String?
        /// Frame → reference.
        public var transform: Transform
        /// Whether the frame is stacked.
        public var used: Bool
        /// Why it is not, when it is not.
        public var reason: String?
    }

    /// The reference frame's index, when the file names one.
    public var reference: Int?
    /// The frame index of the first entry (0 unless the file is a slice).
    public var first = 0
    /// The alignment that made the transforms, when the file names it
    /// (`align`, as a report and `stack register` write it).
    public var alignment: Alignment?
    /// One entry per frame, in input order.
    public var frames: [Entry]

    /// Reads the file at `path`.
    /// - Throws: `StackerError.invalidInput` naming `path` and the problem.
    public static func read(_ path: some FilePathConvertible) throws -> TransformsFile {
        let name = path.filePath.description
        let bytes = try FileBytes.read(path.filePath)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw StackerError.invalidInput(path: name, reason: "the transforms file is not UTF-8 text")
        }
        do {
            return try TransformsFile(json: text)
        } catch let e as JSONValue.SyntaxError {
            throw StackerError.invalidInput(path: name, reason: "the transforms file is \(e.description)")
        } catch let e as ShapeError {
            throw StackerError.invalidInput(path: name, reason: e.reason)
        }
    }

    /// Parses the JSON text of a transforms file or report.
    init(json text: String) throws {
        let root = try JSONValue.parse(text)
        guard let frames = root["frames"]?.array else { throw ShapeError(reason: "no \"frames\" array") }
        if let r = root["reference"] {
            guard let index = r.int, index >= 0 else { throw ShapeError(reason: "\"reference\" is not a frame index") }
            reference = index
        }
        alignment = root["align"]?.string.flatMap(Alignment.init(rawValue:))
        if let f = root["first"] {
            guard let index = f.int, index >= 0 else { throw ShapeError(reason: "\"first\" is not a frame index") }
            first = index
        }
        self.frames = try frames.enumerated().map { i, entry in try Self.entry(entry, index: i) }
    }

    /// A file's content that is JSON but not a transforms file.
    struct ShapeError: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    private static func entry(_ value: JSONValue, index: Int) throws -> Entry {
        let transform: Transform
        if let rows = value["transform"]?.array {
            let numbers = rows.compactMap(\.array).flatMap { $0.compactMap(\.double) }
            guard rows.count == 3, numbers.count == 9 else {
                throw ShapeError(reason: "frame \(index): \"transform\" needs three rows of three numbers")
            }
            transform = Transform(matrix: numbers)
        } else if let dx = value["dx"]?.double, let dy = value["dy"]?.double {
            transform = .translation(dx: dx, dy: dy)
        } else {
            throw ShapeError(reason: "frame \(index): needs \"transform\" or \"dx\" and \"dy\"")
        }
        guard transform.inverse != nil else {
            throw ShapeError(reason: "frame \(index): the transform is not invertible")
        }
        let used = value["used"]?.bool ?? true
        return Entry(path: value["path"]?.string, transform: transform, used: used,
                     reason: used ? nil : value["reason"]?.string ?? "left out by the transforms file")
    }

    /// Sets `options` to stack with these transforms over `frameCount`
    /// frames: the given transforms, the frames left out, and the reference.
    /// When `options.matchExposure` is nil and the file names its
    /// alignment, exposure matching is settled as that alignment's run
    /// settles it (`StackOptions.matchesExposure`, with the normalization
    /// `options` has now), so the run matches the one that made the file.
    /// - Throws: `StackerError.invalidInput` naming `path` when the file
    ///   does not fit the run.
    public func apply(to options: inout StackOptions, frameCount: Int, path: some FilePathConvertible) throws {
        let name = path.filePath.description
        guard frames.count == frameCount else {
            throw StackerError.invalidInput(path: name, reason: "the transforms file has \(frames.count) frame(s), \(frameCount) given")
        }
        if let reference {
            guard reference < frameCount else {
                throw StackerError.invalidInput(path: name, reason: "the reference \(reference) is out of range 0…\(frameCount - 1)")
            }
            options.referenceIndex = reference
            options.automaticReference = false
        }
        guard frames[options.referenceIndex].used else {
            throw StackerError.invalidInput(path: name, reason: "the reference frame \(options.referenceIndex) is marked unused")
        }
        options.givenTransforms = frames.map(\.transform)
        if options.matchExposure == nil, let alignment {
            options.matchExposure = options.normalization == .none && alignment.matchesExposureByDefault
        }
        options.excludedFrames = [:]
        for (i, f) in frames.enumerated() where !f.used { options.excludedFrames[i] = f.reason }
    }
}
