import Registration

/// A piece of a sharded run as read from its file, before it is known to
/// be partial sums or a row band: the header's values and the file's bytes,
/// whose float planes are decoded on demand.
struct ShardPiece {
    /// The run the piece belongs to.
    var identity: ShardIdentity
    /// The header values asked for, by keyword.
    var values: [String: String]
    private var bytes: [UInt8]
    private var path: String

    /// Reads the piece at `path`, which must be of `kind` (`STKKIND`), with
    /// the header values `extra` beside the identity's.
    /// - Throws: `StackerError` naming `path`: unreadable, not FITS, not a
    ///   piece, or another kind of piece.
    static func read(_ path: some FilePathConvertible, kind: String, extra: [String]) throws -> ShardPiece {
        let name = path.filePath.description
        let bytes = try FileBytes.read(path.filePath)
        guard FITSCodec.hasMagic(bytes) else {
            throw StackerError.invalidInput(path: name, reason: "not a FITS file; stack merge takes the files stack --partial wrote")
        }
        let values = try FITSCodec.keywordValues(bytes, names: ["STKKIND"] + ShardIdentity.keywordNames
                                                     + ShardMetadata.keywordNames + extra, path: name)
        guard let found = values["STKKIND"] else { throw ShardIdentity.notAPiece(name, missing: "STKKIND") }
        guard found == kind else {
            throw StackerError.invalidInput(path: name, reason: "it holds \(Self.describe(found)), the first piece \(Self.describe(kind)); merge one kind at a time")
        }
        return ShardPiece(identity: try ShardIdentity(values: values, path: name), values: values, bytes: bytes, path: name)
    }

    /// The kind of piece `kind` names, in words.
    static func describe(_ kind: String) -> String {
        kind == PartialSums.kind ? "partial sums" : kind == RowBand.kind ? "a row band" : "'\(kind)'"
    }

    /// The kind of the piece at `path` (its `STKKIND`).
    static func kind(of path: some FilePathConvertible) throws -> String {
        let name = path.filePath.description
        let bytes = try FileBytes.read(path.filePath)
        guard FITSCodec.hasMagic(bytes) else {
            throw StackerError.invalidInput(path: name, reason: "not a FITS file; stack merge takes the files stack --partial wrote")
        }
        guard let kind = try FITSCodec.keywordValues(bytes, names: ["STKKIND"], path: name)["STKKIND"] else {
            throw ShardIdentity.notAPiece(name, missing: "STKKIND")
        }
        return kind
    }

    /// What the piece carries beside its pixels.
    /// - Throws: `StackerError` naming the file when that cannot be read.
    func metadata() throws -> ShardMetadata {
        try ShardMetadata(values: values, keywords: FITSCodec.carriedKeywords(bytes, path: path),
                          attachments: FITSCodec.attachments(bytes, path: path), bitDepth: identity.bitDepth, path: path)
    }

    /// Every plane of the file, in order: the planes of an RGB image or of
    /// a cube, or the one plane of a gray image, as its header sizes them.
    func planes() throws -> [Plane] {
        let header = try FITSCodec.header(bytes, path: path)
        return try (0..<header.frames).flatMap { frame in
            try FITSCodec.decode(bytes, path: path, maxPixels: Int.max, frame: frame).image.planes
        }
    }
}
