/// Rewriting the orientation and size an EXIF block states, for an output
/// that is stored upright and whose size is not the reference file's stored
/// one (an orientation applied, a crop, a drizzle scale).
extension EXIF {
    /// Tags that state a size: ImageWidth and ImageLength in IFD0,
    /// PixelXDimension and PixelYDimension in the EXIF sub-IFD.
    static let imageWidthTag = 0x0100, imageLengthTag = 0x0101
    static let pixelXDimensionTag = 0xA002, pixelYDimensionTag = 0xA003
    /// The tag in IFD0 whose value is the EXIF sub-IFD's offset.
    static let exifIFDTag = 0x8769

    /// `tiff` (an EXIF TIFF block) made true of an output image of `width`
    /// × `height` pixels, stored upright: Orientation 1 (where the tag is
    /// present) and the sizes of `withDimensions`.
    static func forOutput(_ tiff: [UInt8], width: Int, height: Int) -> [UInt8] {
        var upright = tiff
        if let found = TIFFReader(tiff)?.orientation(), let entry = found { entry.patch(&upright, to: 1) }
        return withDimensions(upright, width: width, height: height)
    }

    /// `tiff` (an EXIF TIFF block) with every size it states set to `width`
    /// × `height`: ImageWidth/ImageLength in IFD0 and
    /// PixelXDimension/PixelYDimension in the EXIF sub-IFD, where present.
    /// Entries are changed in place (an entry of type SHORT whose new value
    /// does not fit 16 bits becomes a LONG, which the same 4-byte value
    /// field holds), so no offset in the block moves. Absent tags are not
    /// added. A malformed block, or one whose entries lie out of bounds, is
    /// returned with only the entries that could be read changed.
    static func withDimensions(_ tiff: [UInt8], width: Int, height: Int) -> [UInt8] {
        guard let reader = TIFFReader(tiff), let ifd0 = reader.u32(4) else { return tiff }
        var out = tiff
        let sizes = [imageWidthTag: width, imageLengthTag: height,
                     pixelXDimensionTag: width, pixelYDimensionTag: height]
        var exifIFD: Int? = nil
        for entry in reader.entries(ofIFDAt: ifd0) {
            if entry.tag == exifIFDTag, entry.count == 1, entry.type == 4 || entry.type == 13 {
                exifIFD = reader.u32(entry.offset + 8)
            } else if entry.tag == imageWidthTag || entry.tag == imageLengthTag, let value = sizes[entry.tag] {
                setUnsigned(&out, entry: entry, to: value, littleEndian: reader.littleEndian)
            }
        }
        if let exifIFD, exifIFD != ifd0 {
            for entry in reader.entries(ofIFDAt: exifIFD)
            where entry.tag == pixelXDimensionTag || entry.tag == pixelYDimensionTag {
                setUnsigned(&out, entry: entry, to: sizes[entry.tag]!, littleEndian: reader.littleEndian)
            }
        }
        return out
    }

    /// Sets a one-value SHORT or LONG entry to `value` (a SHORT that cannot
    /// hold it becomes a LONG); other entries are left alone.
    private static func setUnsigned(_ tiff: inout [UInt8], entry: TIFFReader.IFDEntry, to value: Int,
                                    littleEndian: Bool) {
        guard entry.count == 1, entry.type == 3 || entry.type == 4, value >= 0, value <= Int(UInt32.max),
              entry.offset >= 0, entry.offset + 12 <= tiff.count else { return }
        let type = entry.type == 3 && value <= 0xFFFF ? 3 : 4
        func put(_ v: Int, at offset: Int, width: Int) {
            for k in 0..<width {
                let shift = littleEndian ? 8 * k : 8 * (width - 1 - k)
                tiff[offset + k] = UInt8(truncatingIfNeeded: v >> shift)
            }
        }
        put(type, at: entry.offset + 2, width: 2)
        put(0, at: entry.offset + 8, width: 4)
        put(value, at: entry.offset + 8, width: type == 3 ? 2 : 4)
    }
}

extension TIFFReader {
    /// One 12-byte directory entry: where it starts in the block, its tag,
    /// type and value count. The value (or its offset) is at `offset + 8`.
    struct IFDEntry {
        var offset: Int
        var tag: Int
        var type: Int
        var count: Int
    }

    /// The entries of the directory at `ifd`, up to the first one that lies
    /// out of bounds (all of them in a well-formed block).
    func entries(ofIFDAt ifd: Int) -> [IFDEntry] {
        guard let count = u16(ifd) else { return [] }
        var found: [IFDEntry] = []
        for k in 0..<count {
            let e = ifd + 2 + 12 * k
            guard let tag = u16(e), let type = u16(e + 2), let n = u32(e + 4), e + 12 <= bytes.count else { break }
            found.append(IFDEntry(offset: e, tag: tag, type: type, count: n))
        }
        return found
    }
}
