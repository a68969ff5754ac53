/// Files we do not read, named by their signature so that the refusal says
/// what the file is and what to do, instead of "not a JPEG, PNG, …"; and
/// camera raws, told apart from TIFF so that `ImageFile` hands them to
/// `RAWCodec` (LibRaw) and never stacks a TIFF-structured raw's small
/// embedded preview.
///
/// Detected from the first bytes (and, for TIFF-structured raws, IFD0):
/// - JPEG XL, bare codestream (`FF 0A`) or container (`JXL ` box);
/// - gzip (`1F 8B`), e.g. a `.fits.gz` (cfitsio's in-memory reader does not
///   decompress it);
/// - camera raws (`rawName`, read by `RAWCodec`): Canon CR3 (ISO BMFF brand
///   `crx `), Canon CR2 (TIFF with `CR` at byte 8), Phase One IIQ (TIFF with
///   `IIII` at byte 8), Canon CRW, Fujifilm RAF,
///   Olympus ORF, Panasonic RW2, Minolta MRW, Sigma X3F; and TIFF
///   files that are raws: a DNGVersion tag (Adobe DNG), a CFA or LinearRaw
///   photometric interpretation, or a camera maker's `Make` (Nikon NEF, Sony
///   ARW, Pentax PEF, …) with SubIFDs or a reduced-resolution IFD0, which is
///   how those files hide the raw data behind a preview.
/// Every read is bounds-checked; unknown or malformed data gives nil.
enum UnsupportedFormat {
    /// The one-line reason to refuse `bytes` (of the file `path`) with, or
    /// nil when the signature is not one of the above (camera raws give
    /// nil here: `rawName` names them and `RAWCodec` reads them).
    static func reason(for bytes: [UInt8], path: String = "") -> String? {
        if starts(bytes, [0xFF, 0x0A]) || starts(bytes, [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
            return "JPEG XL is not supported yet: convert it first (djxl)"
        }
        if starts(bytes, [0x1F, 0x8B]) {
            let lower = path.lowercased()
            let fits = [".fits.gz", ".fit.gz", ".fts.gz"].contains { lower.hasSuffix($0) }
            return fits ? "gzip-compressed FITS: gunzip it first" : "a gzip-compressed file, not an image: gunzip it first"
        }
        return nil
    }

    /// The camera raw family `bytes` belong to ("Canon CR3", "Nikon NEF",
    /// "DNG", …), or nil.
    static func rawName(_ b: [UInt8]) -> String? {
        if b.count >= 12, b[4..<12].elementsEqual(Array("ftypcrx ".utf8)) { return "Canon CR3" }
        if b.count >= 14, b[6..<14].elementsEqual(Array("HEAPCCDR".utf8)) { return "Canon CRW" }
        if starts(b, Array("\u{0}MRM".utf8)) { return "Minolta MRW" }
        if starts(b, Array("FOVb".utf8)) { return "Sigma X3F" }
        if starts(b, Array("FUJIFILMCCD-RAW".utf8)) { return "Fujifilm RAF" }
        if starts(b, Array("IIRO".utf8)) || starts(b, Array("IIRS".utf8)) || starts(b, Array("MMOR".utf8)) { return "Olympus ORF" }
        if starts(b, [0x49, 0x49, 0x55, 0x00]) { return "Panasonic RW2" }
        guard let tiff = TIFFReader(b) else { return nil }
        if b.count >= 10, b[8] == 0x43, b[9] == 0x52 { return "Canon CR2" }
        if b.count >= 12, b[8..<12].elementsEqual(Array("IIII".utf8)) { return "Phase One IIQ" }
        guard let ifd = tiff.u32(4), let count = tiff.u16(ifd), ifd + 2 + 12 * count <= b.count else { return nil }
        var make: String?
        var subIFDs = false, reduced = false, cfa = false
        for k in 0..<count {
            let e = ifd + 2 + 12 * k
            guard let tag = tiff.u16(e), let type = tiff.u16(e + 2), let n = tiff.u32(e + 4) else { return nil }
            switch tag {
            case 50706: return "DNG"  // DNGVersion
            case 262:  // PhotometricInterpretation: CFA (32803) or LinearRaw (34892); a DNGVersion may follow
                if let v = tiff.u16(e + 8), v == 32803 || v == 34892 { cfa = true }
            case 254: reduced = tiff.u32(e + 8).map { $0 & 1 == 1 } ?? false  // NewSubfileType
            case 330: subIFDs = true  // SubIFDs
            case 271 where type == 2 && n > 0 && n < 64:  // Make, ASCII
                let start = n <= 4 ? e + 8 : (tiff.u32(e + 8) ?? b.count)
                guard start >= 0, start + n <= b.count else { break }
                make = String(decoding: b[start..<(start + n)].prefix { $0 != 0 }, as: UTF8.self)
                    .trimmingCharacters(inSet: " ")
            default: break
            }
        }
        if cfa { return make.map { "\($0) raw" } ?? "CFA TIFF" }
        guard let make, subIFDs || reduced else { return nil }
        let upper = make.uppercased()
        let families = [("NIKON", "Nikon NEF"), ("SONY", "Sony ARW"), ("CANON", "Canon CR2"), ("PENTAX", "Pentax PEF"),
                        ("RICOH", "Pentax PEF"), ("OLYMPUS", "Olympus ORF"), ("OM DIGITAL", "Olympus ORF"),
                        ("FUJIFILM", "Fujifilm RAF"), ("PANASONIC", "Panasonic RW2"), ("LEICA", "Leica RWL"),
                        ("SAMSUNG", "Samsung SRW"), ("HASSELBLAD", "Hasselblad 3FR"), ("PHASE ONE", "Phase One IIQ"),
                        ("KODAK", "Kodak DCR"), ("MINOLTA", "Minolta MRW"), ("SIGMA", "Sigma X3F")]
        return families.first { upper.hasPrefix($0.0) }?.1
    }

    private static func starts(_ b: [UInt8], _ prefix: [UInt8]) -> Bool {
        b.count >= prefix.count && b[0..<prefix.count].elementsEqual(prefix)
    }
}

private extension String {
    /// The string without leading and trailing copies of `character`.
    func trimmingCharacters(inSet character: Character) -> String {
        String(drop { $0 == character }.reversed().drop { $0 == character }.reversed())
    }
}
