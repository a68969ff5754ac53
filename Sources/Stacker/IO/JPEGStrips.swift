/// One baseline JPEG made of horizontal strips compressed separately (and
/// concurrently), joined with restart markers.
///
/// A restart marker (`RSTn`) resets the DC predictions and byte-aligns the
/// entropy-coded data, so a scan whose restart interval is one strip's MCU
/// count holds, between its markers, exactly what compressing each strip
/// as an image of its own produces: the same quantisation and (standard)
/// Huffman tables, the DCT block by block, the 4:2:0 chroma averaged within
/// 2×2 blocks that never cross a strip edge (strips are whole MCU rows). The
/// joined file decodes to the same pixels as the image compressed in one
/// piece; only its bytes differ (a DRI segment, a marker per strip).
///
/// The strip layout depends on the image size only, never on the thread
/// count, so the output bytes do not either.
enum JPEGStrips {
    /// About this many pixels per strip: enough strips to keep every core
    /// busy, few enough that the per-strip set-up (a few tens of µs) and
    /// the headers thrown away stay negligible.
    static let targetPixels = 1 << 20

    /// Rows per strip for a `width × height` image whose MCUs are `mcuWidth ×
    /// mcuHeight` pixels: a multiple of `mcuHeight`, about `targetPixels` per
    /// strip, and at most 65 535 MCUs (the largest restart interval DRI
    /// holds). Nil when one strip would cover the image (it is then
    /// compressed in one piece, with no markers).
    static func rowsPerStrip(width: Int, height: Int, mcuWidth: Int, mcuHeight: Int) -> Int? {
        guard width > 0, height > 0, mcuWidth > 0, mcuHeight > 0 else { return nil }
        let mcusPerRow = (width + mcuWidth - 1) / mcuWidth
        let limit = 65_535 / mcusPerRow            // MCU rows per strip allowed by DRI
        let wanted = max(1, targetPixels / (width * mcuHeight))
        let mcuRows = min(wanted, limit)
        guard mcuRows >= 1 else { return nil }
        let rows = mcuRows * mcuHeight
        return rows < height ? rows : nil
    }

    /// The restart interval (MCUs) of strips `rows` high.
    static func restartInterval(width: Int, rows: Int, mcuWidth: Int, mcuHeight: Int) -> Int {
        (width + mcuWidth - 1) / mcuWidth * (rows / mcuHeight)
    }

    /// The parts of one strip's JPEG: its tables (SOI up to SOS), where
    /// the SOF height field sits in them, the SOS segment, and the
    /// entropy-coded data (up to, not including, EOI).
    struct Parts {
        var tables: ArraySlice<UInt8>
        var heightOffset: Int
        var scan: ArraySlice<UInt8>
        var data: ArraySlice<UInt8>
    }

    /// Splits a baseline, single-scan JPEG (as TurboJPEG writes it) into
    /// `Parts`; nil for anything else (progressive, DRI already set, no EOI
    /// at the end, truncated segments).
    static func parts(of jpeg: [UInt8]) -> Parts? {
        guard jpeg.count > 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8,
              jpeg[jpeg.count - 2] == 0xFF, jpeg[jpeg.count - 1] == 0xD9 else { return nil }
        var i = 2
        var heightOffset: Int?
        while i + 4 <= jpeg.count {
            guard jpeg[i] == 0xFF else { return nil }
            let marker = jpeg[i + 1]
            let length = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
            let end = i + 2 + length
            guard length >= 2, end <= jpeg.count - 2 else { return nil }
            switch marker {
            case 0xC0:                              // SOF0 (baseline): P, Y, X, …
                guard length >= 8 else { return nil }
                heightOffset = i + 5
            case 0xC1...0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF, 0xDD:
                return nil                          // not baseline, or restarts already
            case 0xDA:                              // SOS: the data follows
                guard let h = heightOffset else { return nil }
                return Parts(tables: jpeg[0..<i], heightOffset: h, scan: jpeg[i..<end], data: jpeg[end..<(jpeg.count - 2)])
            default:
                break
            }
            i = end
        }
        return nil
    }

    /// The strips' JPEGs (top to bottom, every one but the last holding
    /// `interval` MCUs) joined into one `height` rows high, or nil when they
    /// do not share their tables and layout (the caller then compresses the
    /// image in one piece).
    static func join(_ strips: [[UInt8]], height: Int, interval: Int) -> [UInt8]? {
        guard !strips.isEmpty, (1...65_535).contains(interval), (1...65_535).contains(height) else { return nil }
        var all: [Parts] = []
        for strip in strips {
            guard let p = parts(of: strip) else { return nil }
            all.append(p)
        }
        // Every strip's tables and scan header must equal the first one's
        // but for the SOF height.
        let first = all[0]
        for p in all.dropFirst() {
            guard p.scan == first.scan, p.tables.count == first.tables.count,
                  p.heightOffset == first.heightOffset else { return nil }
            for (k, (a, b)) in zip(first.tables, p.tables).enumerated() where a != b {
                guard k == first.heightOffset || k == first.heightOffset + 1 else { return nil }
            }
        }
        var out = Array(first.tables)
        out.reserveCapacity(first.tables.count + 6 + first.scan.count + all.reduce(2) { $0 + $1.data.count + 2 })
        out[first.heightOffset] = UInt8(height >> 8)
        out[first.heightOffset + 1] = UInt8(height & 0xFF)
        out += [0xFF, 0xDD, 0x00, 0x04, UInt8(interval >> 8), UInt8(interval & 0xFF)]
        out += first.scan
        for (k, p) in all.enumerated() {
            out += p.data
            if k < all.count - 1 { out += [0xFF, 0xD0 + UInt8(k % 8)] }
        }
        out += [0xFF, 0xD9]
        return out
    }
}

// References
// - ITU-T T.81 (ISO/IEC 10918-1), "Digital compression and coding of
//   continuous-tone still images", 1992: B.2.4.4 (DRI), F.1.2.3 and F.2.2.5
//   (restart intervals reset the DC predictions, byte alignment before RSTm).
