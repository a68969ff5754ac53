public import Registration

/// The average of a slice of the burst, unnormalised, so that slices
/// stacked apart (on other machines) add up to the stack of all of them:
/// per pixel and channel Σw·x, and per pixel Σw (w: the frame weight times
/// the frame's coverage of that pixel), on the reference grid.
///
/// Written (`write(to:)`, `stack --partial FILE`) as a 32-bit float FITS
/// cube of `channels + 1` planes (the sums, then Σw) whose header records
/// the grid, the frame slice, the reference, and digests of the frame list
/// and the options (`ShardIdentity`), and what the output carries beside
/// its pixels (`ShardMetadata`). `ShardMerge` adds the sums of every slice
/// and divides.
public struct PartialSums: Sendable {
    /// Σw·x, one plane per channel.
    public var sums: [Plane]
    /// Σw per pixel.
    public var weight: Plane
    /// The frames summed: indices into the run's frame list.
    public var frames: Range<Int>
    /// The run these sums belong to.
    var identity: ShardIdentity
    /// What the merged output carries beside its pixels.
    var metadata: ShardMetadata

    /// Sums over `frames` of a run over `names` with `options`, whose
    /// reference carried `metadata`.
    init(sums: [Plane], weight: Plane, frames: Range<Int>, names: [String], options: StackOptions,
         metadata: CarriedMetadata) {
        self.sums = sums
        self.weight = weight
        self.frames = frames
        identity = ShardIdentity(width: weight.width, height: weight.height, channels: sums.count, names: names,
                                 options: options, bitDepth: metadata.bitDepth)
        self.metadata = ShardMetadata(metadata, options: options)
    }

    private init(sums: [Plane], weight: Plane, frames: Range<Int>, identity: ShardIdentity, metadata: ShardMetadata) {
        self.sums = sums
        self.weight = weight
        self.frames = frames
        self.identity = identity
        self.metadata = metadata
    }

    /// Writes the sums atomically to `path` (a failed write leaves no file).
    /// - Throws: `StackerError.writeFailed` naming `path`.
    public func write(to path: some FilePathConvertible) throws {
        let keywords = [FITSKeyword(name: "STKKIND", value: Self.kind, comment: "stack partial sums", kind: .string),
                        FITSKeyword(name: "STKFIRST", value: "\(frames.lowerBound)", comment: "first frame summed", kind: .integer),
                        FITSKeyword(name: "STKEND", value: "\(frames.upperBound)", comment: "frame after the last", kind: .integer)]
            + identity.keywords + metadata.keywords
        let cube = Image(width: weight.width, height: weight.height, planes: sums + [weight])
        let name = path.filePath.description
        try AtomicFile.write(try FITSCodec.encode(cube, bitDepth: 32, keywords: keywords, attachments: metadata.attachments,
                                                  path: name), to: path)
    }

    /// The `STKKIND` of a partial-sums file.
    static let kind = "PARTIAL"

    /// Reads the sums `write(to:)` wrote at `path`.
    /// - Throws: `StackerError` naming `path` when it is not such a file.
    public static func read(_ path: some FilePathConvertible) throws -> PartialSums {
        let piece = try ShardPiece.read(path, kind: kind, extra: ["STKFIRST", "STKEND"])
        let name = path.filePath.description
        guard let first = piece.values["STKFIRST"].flatMap({ Int($0) }), let end = piece.values["STKEND"].flatMap({ Int($0) }),
              0 <= first, first < end, end <= piece.identity.frameCount else {
            throw StackerError.invalidInput(path: name, reason: "its header gives no valid frame slice (STKFIRST, STKEND)")
        }
        let planes = try piece.planes()
        let id = piece.identity
        guard planes.count == id.channels + 1, planes.allSatisfy({ $0.width == id.width && $0.height == id.height }) else {
            throw StackerError.invalidInput(path: name, reason: "its pixels are not \(id.channels + 1) planes of \(id.width)×\(id.height)")
        }
        return PartialSums(sums: Array(planes.dropLast()), weight: planes.last!, frames: first..<end, identity: piece.identity,
                           metadata: try piece.metadata())
    }
}
