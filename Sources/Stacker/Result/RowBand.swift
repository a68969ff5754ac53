import Registration

/// One band of rows of a stack's output, computed over all frames by one
/// shard of a robust (or any) stack (`stack --rows i/N --partial FILE`).
/// Every output pixel is reduced alone, so the bands `ShardMerge` puts
/// together are the one-shot image, bit for bit.
///
/// Band `i` of `N` holds rows `i·H/N ..< (i+1)·H/N` of the `H` rows. It is
/// written as a 32-bit float FITS image of those rows (the stacked values
/// as they are, before any output quantisation) whose header records the
/// band, the grid, the reference, and digests of the frame list and the
/// options (`ShardIdentity`), and what the output carries beside its
/// pixels (`ShardMetadata`).
public struct RowBand: Sendable {
    /// The band's rows, full width.
    public var rows: Image
    /// Which band this is, from 0, and of how many.
    public var band: Int, bands: Int
    /// The run the band belongs to.
    var identity: ShardIdentity
    /// What the merged output carries beside its pixels.
    var metadata: ShardMetadata

    /// The rows `band · H / bands ..< (band + 1) · H / bands` of `height`.
    public static func rows(band: Int, of bands: Int, height: Int) -> Range<Int> {
        (band * height / bands)..<((band + 1) * height / bands)
    }

    /// Band `band` of `bands` of `result`'s image.
    /// - Precondition: `0 <= band < bands`.
    public init(_ result: StackResult, band: Int, of bands: Int) {
        precondition((0..<bands).contains(band), "band \(band) of \(bands)")
        let image = result.image
        let range = Self.rows(band: band, of: bands, height: image.height)
        let w = image.width
        rows = Image(width: w, height: range.count, planes: image.planes.map {
            Plane(width: w, height: range.count, pixels: Array($0.pixels[(range.lowerBound * w)..<(range.upperBound * w)]))
        })
        self.band = band
        self.bands = bands
        identity = ShardIdentity(width: w, height: image.height, channels: image.channels,
                                 names: result.frames.map(\.path), options: result.options,
                                 bitDepth: result.metadata.bitDepth)
        metadata = ShardMetadata(result.metadata, options: result.options)
    }

    private init(rows: Image, band: Int, bands: Int, identity: ShardIdentity, metadata: ShardMetadata) {
        self.rows = rows
        self.band = band
        self.bands = bands
        self.identity = identity
        self.metadata = metadata
    }

    /// The `STKKIND` of a row-band file.
    static let kind = "ROWBAND"

    /// Writes the band atomically to `path` (a failed write leaves no file).
    /// - Throws: `StackerError.writeFailed` naming `path`.
    public func write(to path: some FilePathConvertible) throws {
        let keywords = [FITSKeyword(name: "STKKIND", value: Self.kind, comment: "stack row band", kind: .string),
                        FITSKeyword(name: "STKBAND", value: "\(band)", comment: "band index from 0", kind: .integer),
                        FITSKeyword(name: "STKBANDS", value: "\(bands)", comment: "number of bands", kind: .integer)]
            + identity.keywords + metadata.keywords
        let name = path.filePath.description
        try AtomicFile.write(try FITSCodec.encode(rows, bitDepth: 32, keywords: keywords, attachments: metadata.attachments,
                                                  path: name), to: path)
    }

    /// Reads the band `write(to:)` wrote at `path`.
    /// - Throws: `StackerError` naming `path` when it is not such a file.
    public static func read(_ path: some FilePathConvertible) throws -> RowBand {
        let piece = try ShardPiece.read(path, kind: kind, extra: ["STKBAND", "STKBANDS"])
        let name = path.filePath.description
        let id = piece.identity
        guard let band = piece.values["STKBAND"].flatMap({ Int($0) }), let bands = piece.values["STKBANDS"].flatMap({ Int($0) }),
              (0..<bands).contains(band), bands <= max(1, id.height) else {
            throw StackerError.invalidInput(path: name, reason: "its header gives no valid band (STKBAND, STKBANDS)")
        }
        let range = rows(band: band, of: bands, height: id.height)
        let planes = try piece.planes()
        guard planes.count == id.channels, planes.allSatisfy({ $0.width == id.width && $0.height == range.count }) else {
            throw StackerError.invalidInput(path: name, reason: "its pixels are not band \(band) of \(bands) of a \(id.width)×\(id.height) grid")
        }
        return RowBand(rows: Image(width: id.width, height: range.count, planes: planes), band: band, bands: bands, identity: id,
                       metadata: try piece.metadata())
    }
}
