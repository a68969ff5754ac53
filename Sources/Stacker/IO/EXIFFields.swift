/// The EXIF entries an output that cannot hold the EXIF block as it is
/// (TIFF, whose EXIF lives in the file's own directories) writes again, read
/// from the block: the common shooting facts and the output's size.
struct EXIFFields: Equatable {
    /// IFD0: Make (0x010F), Model (0x0110), DateTime (0x0132), Artist
    /// (0x013B), Copyright (0x8298).
    var make, model, dateTime, artist, copyright: String?
    /// EXIF IFD: ExposureTime (0x829A), FNumber (0x829D), ExposureBiasValue
    /// (0x9204, signed), FocalLength (0x920A).
    var exposureTime, fNumber, exposureBias, focalLength: Double?
    /// EXIF IFD: ISO (0x8827, the first value), FocalLengthIn35mmFilm
    /// (0xA405), ExposureProgram (0x8822), Flash (0x9209),
    /// PixelXDimension/PixelYDimension (0xA002/0xA003).
    var iso, focalLength35mm, exposureProgram, flash, pixelX, pixelY: Int?
    /// EXIF IFD: DateTimeOriginal (0x9003), DateTimeDigitized (0x9004),
    /// LensMake (0xA433), LensModel (0xA434), BodySerialNumber (0xA431).
    var dateTimeOriginal, dateTimeDigitized, lensMake, lensModel, bodySerial: String?

    /// The fields of an EXIF TIFF block; those absent, of an unexpected
    /// type, or out of bounds are nil (a malformed block gives no fields).
    init(tiff: [UInt8]) {
        guard let reader = TIFFReader(tiff), let ifd0 = reader.u32(4) else { return }
        let main = reader.entries(ofIFDAt: ifd0)
        take(main, from: reader, texts: [0x010F: \.make, 0x0110: \.model, 0x0132: \.dateTime,
                                         0x013B: \.artist, 0x8298: \.copyright])
        // The EXIF IFD pointer: LONG, or IFD (type 13) as libtiff writes it.
        guard let pointer = main.first(where: { $0.tag == EXIF.exifIFDTag }), pointer.count == 1,
              pointer.type == 4 || pointer.type == 13, let exifIFD = reader.u32(pointer.offset + 8),
              exifIFD != ifd0 else { return }
        take(reader.entries(ofIFDAt: exifIFD), from: reader,
             texts: [0x9003: \.dateTimeOriginal, 0x9004: \.dateTimeDigitized, 0xA433: \.lensMake,
                     0xA434: \.lensModel, 0xA431: \.bodySerial],
             rationals: [0x829A: \.exposureTime, 0x829D: \.fNumber, 0x9204: \.exposureBias, 0x920A: \.focalLength],
             integers: [0x8827: \.iso, 0xA405: \.focalLength35mm, 0x8822: \.exposureProgram, 0x9209: \.flash,
                        EXIF.pixelXDimensionTag: \.pixelX, EXIF.pixelYDimensionTag: \.pixelY])
    }

    /// Sets the field each table names for an entry's tag from that entry.
    private mutating func take(_ entries: [TIFFReader.IFDEntry], from reader: TIFFReader,
                               texts: [Int: WritableKeyPath<EXIFFields, String?>],
                               rationals: [Int: WritableKeyPath<EXIFFields, Double?>] = [:],
                               integers: [Int: WritableKeyPath<EXIFFields, Int?>] = [:]) {
        for entry in entries {
            if let field = texts[entry.tag] { self[keyPath: field] = reader.ascii(entry) }
            if let field = rationals[entry.tag] { self[keyPath: field] = reader.rational(entry) }
            if let field = integers[entry.tag] { self[keyPath: field] = reader.unsigned(entry) }
        }
    }
}

extension TIFFReader {
    /// Where an entry's value bytes start: inside the entry when they fit 4
    /// bytes, else at the offset it holds; nil out of bounds.
    func valueOffset(_ entry: IFDEntry, elementSize: Int) -> Int? {
        let (size, overflow) = entry.count.multipliedReportingOverflow(by: elementSize)
        guard !overflow else { return nil }
        let start = size <= 4 ? entry.offset + 8 : u32(entry.offset + 8)
        guard let start, start >= 0, start <= bytes.count - size else { return nil }
        return start
    }

    /// An ASCII entry's text up to its first NUL, trailing spaces removed;
    /// nil when empty or not ASCII-typed.
    func ascii(_ entry: IFDEntry) -> String? {
        guard entry.type == 2, entry.count >= 1, let start = valueOffset(entry, elementSize: 1) else { return nil }
        var text = bytes[start..<(start + entry.count)].prefix { $0 != 0 }
        while text.last == 0x20 { text.removeLast() }
        return text.isEmpty ? nil : String(decoding: text, as: UTF8.self)
    }

    /// The first value of a SHORT or LONG entry.
    func unsigned(_ entry: IFDEntry) -> Int? {
        guard entry.count >= 1 else { return nil }
        switch entry.type {
        case 3: return valueOffset(entry, elementSize: 2).flatMap { u16($0) }
        case 4: return valueOffset(entry, elementSize: 4).flatMap { u32($0) }
        default: return nil
        }
    }

    /// The first value of a RATIONAL or SRATIONAL entry; nil for a zero
    /// denominator.
    func rational(_ entry: IFDEntry) -> Double? {
        guard entry.count >= 1, entry.type == 5 || entry.type == 10,
              let start = valueOffset(entry, elementSize: 8),
              let n = u32(start), let d = u32(start + 4) else { return nil }
        if entry.type == 10 {
            let sn = Int(Int32(truncatingIfNeeded: n)), sd = Int(Int32(truncatingIfNeeded: d))
            return sd == 0 ? nil : Double(sn) / Double(sd)
        }
        return d == 0 ? nil : Double(n) / Double(d)
    }
}
