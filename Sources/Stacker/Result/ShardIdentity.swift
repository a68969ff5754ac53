/// What every piece of one sharded run shares, recorded in the header of
/// each piece (`PartialSums`, `RowBand`) so that `ShardMerge` refuses pieces
/// of different runs: the reference grid, the frame list, the options.
///
/// The frame list and the options are kept as 64-bit FNV-1a digests of
/// their text (a 10,000-frame list does not fit a FITS header); the mode,
/// the reference and the frame count are also kept as they are.
struct ShardIdentity: Sendable, Equatable {
    /// The output grid: the reference frame's size and channel count.
    var width: Int, height: Int, channels: Int
    /// How many frames the run was given (every shard is given all).
    var frameCount: Int
    /// Digest of the frames' names, in order.
    var frameList: String
    /// Digest of the options that decide the pixels.
    var options: String
    /// The stacking mode's name (for messages).
    var mode: String
    /// The reference frame's index.
    var reference: Int
    /// Bits per sample of the reference.
    var bitDepth: Int
    /// The bits per sample the shards stacked for (`StackOptions.outputBitDepth`,
    /// 8 when not set): the merged output's depth unless asked otherwise.
    var outputDepth: Int

    /// The identity of a run over the frames `names` with `options`.
    init(width: Int, height: Int, channels: Int, names: [String], options: StackOptions, bitDepth: Int) {
        self.width = width
        self.height = height
        self.channels = channels
        frameCount = names.count
        frameList = Self.digest(names.joined(separator: "\n"))
        self.options = Self.digest(String(describing: Self.pixelDeciding(options)))
        mode = options.rejection.map { "reject \($0.name.rawValue)" } ?? options.mode.rawValue
        reference = options.referenceIndex
        self.bitDepth = bitDepth
        outputDepth = options.outputBitDepth ?? 8
    }

    /// `options` without what does not change the pixels (threads, memory,
    /// folders, this shard's slice) or is recorded apart (the reference).
    private static func pixelDeciding(_ options: StackOptions) -> StackOptions {
        var o = options
        o.threads = 1
        o.memoryLimit = 0
        o.maxPixels = 0
        o.temporaryDirectory = "."
        o.frameRange = nil
        o.excludedFrames = [:]
        o.product = .image
        o.rowBand = nil
        o.automaticReference = false
        o.referenceIndex = 0
        return o
    }

    /// 64-bit FNV-1a of `text`'s UTF-8, as 16 hex digits.
    static func digest(_ text: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The header keywords that record this identity.
    var keywords: [FITSKeyword] {
        [FITSKeyword(name: "STKWIDTH", value: "\(width)", comment: "output grid width", kind: .integer),
         FITSKeyword(name: "STKHEIGH", value: "\(height)", comment: "output grid height", kind: .integer),
         FITSKeyword(name: "STKCHAN", value: "\(channels)", comment: "output channels", kind: .integer),
         FITSKeyword(name: "STKNFRM", value: "\(frameCount)", comment: "frames given to the run", kind: .integer),
         FITSKeyword(name: "STKFRMID", value: frameList, comment: "FNV-1a of the frame names", kind: .string),
         FITSKeyword(name: "STKOPTID", value: options, comment: "FNV-1a of the options", kind: .string),
         FITSKeyword(name: "STKMODE", value: mode, comment: "stacking mode", kind: .string),
         FITSKeyword(name: "STKREF", value: "\(reference)", comment: "reference frame index", kind: .integer),
         FITSKeyword(name: "STKDEPTH", value: "\(bitDepth)", comment: "reference bits per sample", kind: .integer),
         FITSKeyword(name: "STKOUTD", value: "\(outputDepth)", comment: "output bits per sample", kind: .integer)]
    }

    /// The names of `keywords`.
    static let keywordNames = ["STKWIDTH", "STKHEIGH", "STKCHAN", "STKNFRM", "STKFRMID", "STKOPTID", "STKMODE",
                               "STKREF", "STKDEPTH", "STKOUTD"]

    /// The identity the header `values` record.
    /// - Throws: `StackerError.invalidInput` naming `path` when one is missing.
    init(values: [String: String], path: String) throws {
        func int(_ name: String) throws -> Int {
            guard let v = values[name].flatMap({ Int($0) }) else { throw Self.notAPiece(path, missing: name) }
            return v
        }
        func text(_ name: String) throws -> String {
            guard let v = values[name] else { throw Self.notAPiece(path, missing: name) }
            return v
        }
        width = try int("STKWIDTH")
        height = try int("STKHEIGH")
        channels = try int("STKCHAN")
        frameCount = try int("STKNFRM")
        frameList = try text("STKFRMID")
        options = try text("STKOPTID")
        mode = try text("STKMODE")
        reference = try int("STKREF")
        bitDepth = try int("STKDEPTH")
        outputDepth = try int("STKOUTD")
    }

    /// The error for a file that is not a piece `--partial` wrote.
    static func notAPiece(_ path: String, missing name: String) -> StackerError {
        .invalidInput(path: path, reason: "not a piece written by stack --partial (no \(name) in its header)")
    }

    /// Why a piece with this identity cannot join one with `first`'s
    /// (written to `firstPath`), or nil when it can.
    func mismatch(with first: ShardIdentity, firstPath: String) -> String? {
        if (width, height, channels) != (first.width, first.height, first.channels) {
            return "another grid (\(width)×\(height), \(channels) channel(s)) than \(firstPath) (\(first.width)×\(first.height), \(first.channels))"
        }
        if frameCount != first.frameCount || frameList != first.frameList {
            return "another frame list (\(frameCount) frames) than \(firstPath) (\(first.frameCount))"
        }
        if reference != first.reference { return "another reference (\(reference)) than \(firstPath) (\(first.reference))" }
        if outputDepth != first.outputDepth {
            return "another --depth (\(outputDepth)) than \(firstPath) (\(first.outputDepth))"
        }
        if options != first.options || mode != first.mode {
            return mode == first.mode ? "other options than \(firstPath); every shard must be run with the same options"
                : "another mode (\(mode)) than \(firstPath) (\(first.mode))"
        }
        return nil
    }
}
