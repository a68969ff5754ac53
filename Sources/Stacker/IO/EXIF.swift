/// EXIF in JPEG files: finding the APP1 `Exif\0\0` segment, reading the
/// Orientation tag (0x0112) from IFD0 of its TIFF block, and inserting a
/// TIFF block into a JPEG; also the orientation of TIFF files and of a
/// PNG's eXIf chunk. Every read is bounds-checked; malformed data
/// yields "no EXIF", never a crash or an over-read.
enum EXIF {
    /// The Orientation tag number.
    static let orientationTag: UInt16 = 0x0112
    /// `Exif\0\0`, which starts the APP1 payload.
    static let header: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]
    /// The largest TIFF block an APP1 segment can carry: the 16-bit segment
    /// length counts itself (2 bytes) and `Exif\0\0` (6 bytes).
    static let maxTIFFSize = 65535 - 2 - 6

    /// Orientation (1…8, 1 when absent or invalid) and the TIFF block with
    /// its orientation reset to 1 (nil when there is none or it is malformed).
    static func read(jpeg bytes: [UInt8]) -> (orientation: Int, tiff: [UInt8]?) {
        read(payload: payload(inJPEG: bytes))
    }

    /// `read(jpeg:)` of an EXIF TIFF block already found (nil: none).
    static func read(payload: [UInt8]?) -> (orientation: Int, tiff: [UInt8]?) {
        guard var tiff = payload, let found = TIFFReader(tiff)?.orientation() else {
            return (1, nil)
        }
        guard let entry = found else { return (1, tiff) }  // valid TIFF, no orientation tag
        let value = (1...8).contains(entry.value) ? entry.value : 1
        entry.patch(&tiff, to: 1)
        return (value, tiff)
    }

    /// The Orientation of a TIFF file (tag 274 in its first directory, the
    /// same tag EXIF uses), 1…8; 1 when absent, invalid or unreadable.
    static func orientation(tiffFile bytes: [UInt8]) -> Int {
        guard let found = TIFFReader(bytes)?.orientation(), let entry = found,
              (1...8).contains(entry.value) else { return 1 }
        return entry.value
    }

    /// The Orientation in a PNG's eXIf chunk (a TIFF block), 1…8; 1 when
    /// there is none or it is malformed (the walk is `PNGMetadata`'s).
    static func orientation(png b: [UInt8]) -> Int {
        PNGMetadata(b).exifOrientation ?? 1
    }

    /// The TIFF block of the first APP1 `Exif\0\0` segment before the image
    /// data (SOS), or nil (the walk is `JPEGMetadata`'s).
    static func payload(inJPEG b: [UInt8]) -> [UInt8]? {
        JPEGMetadata(b).exif
    }

    /// `jpeg` with an APP1 `Exif\0\0` segment holding `tiff` inserted right
    /// after SOI. Returns `jpeg` unchanged when `tiff` is empty, does not fit
    /// one segment, or `jpeg` does not start with SOI.
    static func insert(tiff: [UInt8], intoJPEG jpeg: [UInt8]) -> [UInt8] {
        guard !tiff.isEmpty, tiff.count <= maxTIFFSize, jpeg.count >= 2,
              jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return jpeg }
        let length = 2 + header.count + tiff.count
        var out = [UInt8]()
        out.reserveCapacity(jpeg.count + length + 2)
        out += [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)]
        out += header
        out += tiff
        out += jpeg[2...]
        return out
    }
}

/// A bounds-checked reader of a TIFF block's header and IFD0 (either byte
/// order). All accessors return nil instead of reading past the end.
struct TIFFReader {
    /// Where the Orientation value sits, how wide it is, and in what order.
    struct Entry {
        /// The orientation value found.
        var value: Int
        /// Byte offset of the value in the TIFF block.
        var offset: Int
        /// 2 (SHORT) or 4 (LONG).
        var width: Int
        /// True for "II" (little-endian) blocks.
        var littleEndian: Bool

        /// Overwrites the value in `tiff` (which must be the block it came from).
        func patch(_ tiff: inout [UInt8], to newValue: Int) {
            guard offset >= 0, offset + width <= tiff.count else { return }
            for k in 0..<width {
                let shift = littleEndian ? 8 * k : 8 * (width - 1 - k)
                tiff[offset + k] = UInt8(truncatingIfNeeded: newValue >> shift)
            }
        }
    }

    let bytes: [UInt8]
    let littleEndian: Bool

    /// Nil unless `bytes` starts with a TIFF header (`II*\0` or `MM\0*`).
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 8 else { return nil }
        if bytes[0] == 0x49, bytes[1] == 0x49, bytes[2] == 0x2A, bytes[3] == 0x00 {
            littleEndian = true
        } else if bytes[0] == 0x4D, bytes[1] == 0x4D, bytes[2] == 0x00, bytes[3] == 0x2A {
            littleEndian = false
        } else {
            return nil
        }
        self.bytes = bytes
    }

    /// The unsigned 16-bit value at `offset`, or nil past the end.
    func u16(_ offset: Int) -> Int? {
        guard offset >= 0, offset <= bytes.count - 2 else { return nil }
        let a = Int(bytes[offset]), b = Int(bytes[offset + 1])
        return littleEndian ? a | b << 8 : a << 8 | b
    }

    /// The unsigned 32-bit value at `offset`, or nil past the end.
    func u32(_ offset: Int) -> Int? {
        guard let lo = u16(littleEndian ? offset : offset + 2),
              let hi = u16(littleEndian ? offset + 2 : offset) else { return nil }
        return hi << 16 | lo
    }

    /// The Orientation entry of IFD0: `.some(nil)` when IFD0 is valid but has
    /// none, nil when IFD0 is malformed (out of bounds).
    func orientation() -> Entry?? {
        guard let ifd = u32(4), let count = u16(ifd) else { return nil }
        let entries = ifd + 2
        guard entries + 12 * count <= bytes.count else { return nil }
        for k in 0..<count {
            let e = entries + 12 * k
            guard let tag = u16(e), let type = u16(e + 2), let n = u32(e + 4) else { return nil }
            guard tag == Int(EXIF.orientationTag), n >= 1 else { continue }
            switch type {
            case 3:  // SHORT: value in the first 2 bytes of the value field
                guard let v = u16(e + 8) else { return nil }
                return .some(Entry(value: v, offset: e + 8, width: 2, littleEndian: littleEndian))
            case 4:  // LONG (non-standard but seen)
                guard let v = u32(e + 8) else { return nil }
                return .some(Entry(value: v, offset: e + 8, width: 4, littleEndian: littleEndian))
            default:
                return .some(nil)
            }
        }
        return .some(nil)
    }
}
