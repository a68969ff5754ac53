import Registration

/// Joins the pieces of a sharded run (`stack merge`): partial sums of
/// disjoint frame slices that together hold every frame, added and divided
/// (`PartialSums`); or every row band of the output once (`RowBand`).
///
/// Pieces that do not belong together are refused, naming the file: a
/// piece of another grid, frame list, reference or options, a file named
/// twice, frame slices that overlap, frames or bands no piece holds.
///
/// The merged average equals a one-shot stack within float rounding (the
/// one-shot never forms Σw·x; it keeps a running mean): partial sums are
/// added in the order of their frames, whatever order the files are named
/// in, so a merge gives the same bytes for any order. Merged bands are the
/// one-shot image bit for bit.
public enum ShardMerge {
    /// The merged image of the pieces at `paths`, as a result that writes
    /// itself as the one-shot run's would: no frame records, but what the
    /// pieces carry (`ShardMetadata`: the reference's bit depth, EXIF, ICC
    /// profile, XMP, IPTC and FITS keywords, linear light, the shards'
    /// transfer curve and output scale) and `options.outputBitDepth`, the
    /// depth the shards stacked for.
    /// - Throws: `StackerError.invalidInput` naming the piece that does not fit.
    public static func merge(_ paths: [some FilePathConvertible], threads: Int = StackOptions.defaultThreadCount) throws -> StackResult {
        let files = paths.map(\.filePath)
        guard let first = files.first else { throw StackerError.invalidInput(path: "", reason: "no pieces to merge") }
        var seen: [FilePath: FilePath] = [:]
        for file in files {
            if let earlier = seen[file.canonical] {
                throw StackerError.invalidInput(path: file.description, reason: "named twice (as \(earlier) too)")
            }
            seen[file.canonical] = file
        }
        var options = StackOptions()
        options.threads = threads
        let (image, identity, metadata): (Image, ShardIdentity, ShardMetadata)
        if try ShardPiece.kind(of: first) == RowBand.kind {
            (image, identity, metadata) = try bands(files)
        } else {
            (image, identity, metadata) = try sums(files)
        }
        options.outputBitDepth = identity.outputDepth
        options.transfer = metadata.transfer
        options.outputScale = metadata.outputScale
        return StackResult(image: image, frames: [], referenceIndex: identity.reference,
                           metadata: metadata.carried, options: options)
    }

    /// Adds the partial sums in the order of their frames and divides.
    private static func sums(_ files: [FilePath]) throws -> (Image, ShardIdentity, ShardMetadata) {
        // Headers first (each file is read once more for its planes below,
        // so only one piece's planes are held beside the running sum).
        var slices: [(file: FilePath, frames: Range<Int>)] = []
        var identity: ShardIdentity?
        var metadata: ShardMetadata?
        for file in files {
            let piece = try PartialSums.read(file)
            try check(piece.identity, of: file, against: &identity, first: files[0])
            metadata = metadata ?? piece.metadata
            slices.append((file, piece.frames))
        }
        slices.sort { $0.frames.lowerBound < $1.frames.lowerBound }
        let id = identity!
        var next = 0
        for slice in slices {
            if slice.frames.lowerBound > next {
                throw StackerError.invalidInput(path: slice.file.description,
                    reason: "no piece holds the frames \(next):\(slice.frames.lowerBound) (of \(id.frameCount)); a shard is missing")
            }
            if slice.frames.lowerBound < next {
                let other = slices.first { $0.file != slice.file && $0.frames.overlaps(slice.frames) }!
                throw StackerError.invalidInput(path: slice.file.description,
                    reason: "its frames \(slice.frames.lowerBound):\(slice.frames.upperBound) overlap those of \(other.file) (\(other.frames.lowerBound):\(other.frames.upperBound))")
            }
            next = slice.frames.upperBound
        }
        if next < id.frameCount {
            throw StackerError.invalidInput(path: slices.last!.file.description,
                reason: "no piece holds the frames \(next):\(id.frameCount) (of \(id.frameCount)); a shard is missing")
        }
        let n = id.width * id.height
        var total = [[Float]](repeating: [Float](repeating: 0, count: n), count: id.channels + 1)
        for slice in slices {
            let piece = try PartialSums.read(slice.file)
            for (c, plane) in (piece.sums + [piece.weight]).enumerated() {
                for i in 0..<n { total[c][i] += plane.pixels[i] }
            }
        }
        let weight = total.removeLast()
        let planes = total.map { sum in
            Plane(width: id.width, height: id.height, pixels: (0..<n).map { weight[$0] > 0 ? sum[$0] / weight[$0] : 0 })
        }
        return (Image(width: id.width, height: id.height, planes: planes), id, metadata!)
    }

    /// Puts every band in its place.
    private static func bands(_ files: [FilePath]) throws -> (Image, ShardIdentity, ShardMetadata) {
        var identity: ShardIdentity?
        var metadata: ShardMetadata?
        var placed: [Int: FilePath] = [:]
        var pixels: [[Float]] = []
        var count = 0
        for file in files {
            let band = try RowBand.read(file)
            try check(band.identity, of: file, against: &identity, first: files[0])
            metadata = metadata ?? band.metadata
            let id = identity!
            if pixels.isEmpty {
                count = band.bands
                pixels = [[Float]](repeating: [Float](repeating: 0, count: id.width * id.height), count: id.channels)
            }
            guard band.bands == count else {
                throw StackerError.invalidInput(path: file.description, reason: "it is band \(band.band) of \(band.bands), \(files[0]) one of \(count)")
            }
            if let other = placed[band.band] {
                throw StackerError.invalidInput(path: file.description, reason: "it is band \(band.band) of \(count) again (also \(other))")
            }
            placed[band.band] = file
            let start = RowBand.rows(band: band.band, of: count, height: id.height).lowerBound * id.width
            for c in 0..<id.channels {
                pixels[c].replaceSubrange(start..<(start + band.rows.planes[c].pixels.count), with: band.rows.planes[c].pixels)
            }
        }
        let id = identity!
        if let missing = (0..<count).first(where: { placed[$0] == nil }) {
            throw StackerError.invalidInput(path: files.last!.description, reason: "band \(missing) of \(count) is missing; no piece holds it")
        }
        return (Image(width: id.width, height: id.height, planes: pixels.map { Plane(width: id.width, height: id.height, pixels: $0) }),
                id, metadata!)
    }

    /// Keeps the first piece's identity and refuses a piece whose differs.
    private static func check(_ identity: ShardIdentity, of file: FilePath, against first: inout ShardIdentity?,
                              first firstFile: FilePath) throws {
        guard let known = first else { first = identity; return }
        if let reason = identity.mismatch(with: known, firstPath: firstFile.description) {
            throw StackerError.invalidInput(path: file.description, reason: "a piece of \(reason)")
        }
    }
}
