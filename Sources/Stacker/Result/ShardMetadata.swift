/// What a sharded run's output carries beside its pixels, recorded in every
/// piece (`PartialSums`, `RowBand`) so that `stack merge` writes the file a
/// one-shot run would: the reference's EXIF, ICC profile, XMP and IPTC (as
/// byte attachments of the piece's FITS file), its FITS keywords (in the
/// piece's header), whether its values are linear light, and the transfer
/// curve and output scale the shards were given (header values).
struct ShardMetadata: Sendable, Equatable {
    /// The reference's metadata; `whiteBalance` and `debayer` are report
    /// entries and are not carried.
    var carried: CarriedMetadata
    /// `StackOptions.transfer` of the shards.
    var transfer: TransferCurve?
    /// `StackOptions.outputScale` of the shards.
    var outputScale: OutputScale

    /// The header values this records beside the reference's keywords.
    static let keywordNames = ["STKLIN", "STKXFER", "STKOSCAL"]
    /// The attachments' `EXTNAME`s.
    private static let exifName = "STKEXIF", iccName = "STKICC", xmpName = "STKXMP", iptcName = "STKIPTC"

    init(_ carried: CarriedMetadata, options: StackOptions) {
        self.carried = carried
        self.carried.whiteBalance = nil
        self.carried.debayer = nil
        transfer = options.transfer
        outputScale = options.outputScale
    }

    /// The header keywords: the reference's FITS keywords, then ours.
    var keywords: [FITSKeyword] {
        var cards = carried.keywords
        cards.append(FITSKeyword(name: "STKLIN", value: carried.linearLight ? "T" : "F",
                                 comment: "reference values are linear light", kind: .logical))
        if let transfer {
            cards.append(FITSKeyword(name: "STKXFER", value: transfer.rawValue, comment: "output transfer curve", kind: .string))
        }
        cards.append(FITSKeyword(name: "STKOSCAL", value: outputScale.rawValue, comment: "output scale", kind: .string))
        return cards
    }

    /// The reference's byte blocks, named for `FITSCodec.encode`.
    var attachments: [(name: String, bytes: [UInt8])] {
        [(Self.exifName, carried.exif), (Self.iccName, carried.iccProfile), (Self.xmpName, carried.xmp),
         (Self.iptcName, carried.iptc)].compactMap { name, bytes in bytes.map { (name, $0) } }
    }

    /// What a piece records: its header `values` (of `keywordNames`), the
    /// reference's `keywords` its header holds, its `attachments`, and the
    /// identity's bit depth. A piece written before these were recorded
    /// reads as bare: no metadata, display-encoded values, the defaults.
    /// - Throws: `StackerError.invalidInput` naming `path` for a value that
    ///   is not one of its kind's.
    init(values: [String: String], keywords: [FITSKeyword], attachments: [String: [UInt8]], bitDepth: Int,
         path: String) throws {
        carried = CarriedMetadata(exif: attachments[Self.exifName], bitDepth: bitDepth, keywords: keywords,
                                  iccProfile: attachments[Self.iccName], xmp: attachments[Self.xmpName],
                                  iptc: attachments[Self.iptcName])
        carried.linearLight = values["STKLIN"] == "T"
        func parsed<T: RawRepresentable<String>>(_ name: String) throws -> T? {
            guard let text = values[name] else { return nil }
            guard let value = T(rawValue: text) else {
                throw StackerError.invalidInput(path: path, reason: "its header's \(name) = '\(text)' is not a value stack writes")
            }
            return value
        }
        transfer = try parsed("STKXFER")
        outputScale = try parsed("STKOSCAL") ?? .native
    }
}
