public import Stacker

/// A minimal Adobe DNG 1.4 writer: one little-endian IFD holding a
/// 16-bit CFA mosaic (PhotometricInterpretation 32803; uncompressed in one
/// strip, or lossless JPEG in tiles as cameras and Adobe's converter write
/// it, see `Compression`) and the tags a raw reader needs to interpret it — DNGVersion,
/// CFARepeatPatternDim and CFAPattern, BlackLevelRepeatDim and BlackLevel
/// (one level per position of the 2 × 2 pattern), WhiteLevel, ColorMatrix1
/// with its illuminant, AsShotNeutral, UniqueCameraModel, Make, Model and
/// Orientation.
///
/// The tests' raw files (as `HandMadeDNG` in TestSupport) and the bench's
/// DNG bursts (`stack-bench --cases dng`) are written with it.
public struct DNGFile: Sendable {
    public var width: Int
    public var height: Int
    /// The 2 × 2 CFA pattern read row by row, as DNG colour numbers
    /// (0 red, 1 green, 2 blue): RGGB is [0, 1, 1, 2].
    public var cfaPattern: [UInt8]
    /// Black level of each position of the 2 × 2 pattern, row by row.
    public var blackLevels: [UInt16]
    public var whiteLevel: UInt32
    /// AsShotNeutral: the camera's R, G, B response to a neutral grey
    /// (the reciprocal of the white balance multipliers).
    public var asShotNeutral: [Double]
    /// ColorMatrix1, XYZ to camera, 3 × 3 row-major (illuminant D65).
    public var colorMatrix: [Double]
    /// The TIFF/EXIF orientation (1…8).
    public var orientation: Int
    public var make = "Stack"
    public var model = "Generated DNG"
    /// When false, the file has every tag but no strip: a metadata-only
    /// sample, as ExifTool's test files are.
    public var withPixels = true
    /// How the samples are stored (default `.none`).
    public var compression = Compression.none
    /// The side of the square tiles lossless JPEG data is written in, a
    /// multiple of 16 (Adobe's converter uses 256). See `Compression.ljpeg`
    /// for when one strip is written instead.
    public var tileSize = 256
    /// The lossless JPEG predictor (T.81 Table H.1, 1…7; DNG writers use 1).
    public var predictor = 1

    /// How a DNG stores its CFA samples (the Compression tag).
    public enum Compression: String, Sendable, CaseIterable {
        /// Compression = 1: 16-bit little-endian samples, one strip.
        case none
        /// Compression = 7: lossless JPEG (`LosslessJPEGEncoder`), each
        /// tile one JPEG whose rows hold a tile row as two components (the
        /// even and the odd columns), so predictor 1 predicts each sample
        /// from the same CFA colour two columns left. The tiles at the right
        /// and bottom edges are full size, padded with the nearest samples
        /// of the same colour. One strip holding one JPEG of the whole image
        /// (one component if the width is odd) is written instead when the
        /// tiling would trip LibRaw 0.20: a single tile (one TileOffsets
        /// entry is read as a strip), four tiles (read as a Sinar 4-shot),
        /// or a tile half as wide as the image (its rows read as whole rows).
        case ljpeg
    }

    /// A file of the given size and levels; the other tags take plain values
    /// (RGGB, no orientation, neutral (0.5, 1, 0.8), an sRGB-like matrix).
    public init(width: Int, height: Int, cfaPattern: [UInt8] = [0, 1, 1, 2], blackLevels: [UInt16] = [0, 0, 0, 0],
                whiteLevel: UInt32 = 65535, asShotNeutral: [Double] = [0.5, 1, 0.8],
                colorMatrix: [Double] = [3.2406, -1.5372, -0.4986, -0.9689, 1.8758, 0.0415, 0.0557, -0.2040, 1.0570],
                orientation: Int = 1) {
        self.width = width
        self.height = height
        self.cfaPattern = cfaPattern
        self.blackLevels = blackLevels
        self.whiteLevel = whiteLevel
        self.asShotNeutral = asShotNeutral
        self.colorMatrix = colorMatrix
        self.orientation = orientation
    }

    /// One IFD entry: tag, TIFF type and its values' bytes (little-endian).
    private struct Entry {
        let tag: UInt16, type: UInt16, count: Int, data: [UInt8]
    }

    private static func le(_ v: UInt32, _ size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) }
    }
    private static func shorts(_ tag: UInt16, _ v: [UInt32]) -> Entry { Entry(tag: tag, type: 3, count: v.count, data: v.flatMap { le($0, 2) }) }
    private static func longs(_ tag: UInt16, _ v: [UInt32]) -> Entry { Entry(tag: tag, type: 4, count: v.count, data: v.flatMap { le($0, 4) }) }
    private static func bytes(_ tag: UInt16, _ v: [UInt8]) -> Entry { Entry(tag: tag, type: 1, count: v.count, data: v) }
    private static func ascii(_ tag: UInt16, _ s: String) -> Entry {
        let b = Array(s.utf8) + [0]
        return Entry(tag: tag, type: 2, count: b.count, data: b)
    }
    /// RATIONAL (type 5) or SRATIONAL (type 10) values, denominators 10 000.
    private static func rationals(_ tag: UInt16, _ v: [Double], signed: Bool) -> Entry {
        let data = v.flatMap { x -> [UInt8] in
            let n = Int32((x * 10_000).rounded())
            return le(signed ? UInt32(bitPattern: n) : UInt32(max(0, n)), 4) + le(10_000, 4)
        }
        return Entry(tag: tag, type: signed ? 10 : 5, count: v.count, data: data)
    }

    /// The file, with `samples[y * width + x]` the stored 16-bit value of
    /// pixel (x, y), row 0 first. The directory comes first and the pixels
    /// last, as in camera files, so a truncated file keeps its tags.
    public func bytes(samples: [UInt16]) -> [UInt8] {
        precondition(samples.count == width * height, "need \(width * height) samples, got \(samples.count)")
        let blocks = withPixels ? dataBlocks(samples) : []
        let sizes = blocks.map(\.count)
        // The directory's length does not depend on the offsets' values.
        let headLength = header(offsets: sizes.map { _ in 0 }, byteCounts: sizes).count
        var offsets: [Int] = [], at = headLength
        for n in sizes {
            offsets.append(at)
            at += n
        }
        var out = header(offsets: offsets, byteCounts: sizes)
        out.reserveCapacity(at)
        for block in blocks { out += block }
        return out
    }

    /// The tile grid (across, down) lossless JPEG data is written in, or
    /// nil for one strip (see `Compression.ljpeg`).
    public var tiles: (across: Int, down: Int)? {
        guard compression == .ljpeg else { return nil }
        precondition(tileSize >= 16 && tileSize % 16 == 0, "the tile size must be a multiple of 16, got \(tileSize)")
        let across = (width + tileSize - 1) / tileSize, down = (height + tileSize - 1) / tileSize
        return across * down == 1 || across * down == 4 || 2 * tileSize == width ? nil : (across, down)
    }

    /// The stored data: one strip, or one block per tile, row by row.
    private func dataBlocks(_ samples: [UInt16]) -> [[UInt8]] {
        switch compression {
        case .none:
            var strip = [UInt8]()
            strip.reserveCapacity(2 * samples.count)
            for s in samples {
                strip.append(UInt8(truncatingIfNeeded: s))
                strip.append(UInt8(truncatingIfNeeded: s >> 8))
            }
            return [strip]
        case .ljpeg:
            guard let (across, down) = tiles else {
                let components = width % 2 == 0 ? 2 : 1
                return [LosslessJPEGEncoder.encode(samples, width: width / components, height: height,
                                                   components: components, predictor: predictor)]
            }
            precondition(width >= 2 && height >= 2, "a tiled mosaic needs 2 × 2 pixels")
            // Past the edge, the nearest pixel of the same CFA colour.
            func inside(_ v: Int, _ n: Int) -> Int { v < n ? v : n - 2 + ((v - n) & 1) }
            let t = tileSize
            return (0..<(across * down)).map { k in
                let x0 = (k % across) * t, y0 = (k / across) * t
                var tile = [UInt16](repeating: 0, count: t * t)
                for y in 0..<t {
                    let row = inside(y0 + y, height) * width
                    for x in 0..<t { tile[y * t + x] = samples[row + inside(x0 + x, width)] }
                }
                return LosslessJPEGEncoder.encode(tile, width: t / 2, height: t, components: 2, predictor: predictor)
            }
        }
    }

    /// The TIFF header, the IFD and the values it points to, for data blocks
    /// (strip or tiles) at `offsets` of `byteCounts` bytes; none for a file
    /// without pixels.
    private func header(offsets: [Int], byteCounts: [Int]) -> [UInt8] {
        var entries: [Entry] = [
            Self.longs(254, [0]),
            Self.longs(256, [UInt32(width)]),
            Self.longs(257, [UInt32(height)]),
            Self.shorts(258, [16]),
            Self.shorts(259, [compression == .ljpeg ? 7 : 1]),
            Self.shorts(262, [32803]),
            Self.ascii(271, make),
            Self.ascii(272, model),
            Self.shorts(274, [UInt32(orientation)]),
            Self.shorts(277, [1]),
            Self.shorts(284, [1]),
            Self.shorts(33421, [2, 2]),
            Self.bytes(33422, cfaPattern),
            Self.bytes(50706, [1, 4, 0, 0]),
            Self.bytes(50707, [1, 1, 0, 0]),
            Self.ascii(50708, "\(make) \(model)"),
            Self.bytes(50710, [0, 1, 2]),
            Self.shorts(50713, [2, 2]),
            Self.shorts(50714, blackLevels.map(UInt32.init)),
            Self.longs(50717, [whiteLevel]),
            Self.rationals(50721, colorMatrix, signed: true),
            Self.rationals(50728, asShotNeutral, signed: false),
            Self.shorts(50778, [21]),
        ]
        if let tiles, withPixels {
            precondition(offsets.count == tiles.across * tiles.down)
            entries += [Self.longs(322, [UInt32(tileSize)]), Self.longs(323, [UInt32(tileSize)]),
                        Self.longs(324, offsets.map(UInt32.init)), Self.longs(325, byteCounts.map(UInt32.init))]
        } else {
            entries.append(Self.longs(278, [UInt32(height)]))
            if withPixels {
                entries += [Self.longs(273, offsets.map(UInt32.init)), Self.longs(279, byteCounts.map(UInt32.init))]
            }
        }
        entries.sort { $0.tag < $1.tag }
        var out: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + Self.le(8, 4)
        let extraStart = 8 + 2 + 12 * entries.count + 4
        var extra = [UInt8]()
        out += Self.le(UInt32(entries.count), 2)
        for e in entries {
            out += Self.le(UInt32(e.tag), 2) + Self.le(UInt32(e.type), 2) + Self.le(UInt32(e.count), 4)
            if e.data.count <= 4 {
                out += e.data + [UInt8](repeating: 0, count: 4 - e.data.count)
            } else {
                out += Self.le(UInt32(extraStart + extra.count), 4)
                extra += e.data
                if extra.count % 2 == 1 { extra.append(0) }
            }
        }
        out += Self.le(0, 4)  // no next IFD
        return out + extra
    }
}

extension DNGFile {
    /// The RGGB mosaic of a 3-channel `image` (0…1) as 16-bit samples, row
    /// 0 first, for `bytes(samples:)`: each pixel keeps the channel its
    /// filter passes (red at even rows and columns, blue at odd ones).
    public static func rggbSamples(_ image: Image) -> [UInt16] {
        precondition(image.channels == 3, "an RGGB mosaic needs an RGB image, got \(image.channels) channel(s)")
        let w = image.width
        return [UInt16](unsafeUninitializedCapacity: image.pixelCount) { out, count in
            for y in 0..<image.height {
                for x in 0..<w {
                    let c = (y & 1) + (x & 1)  // 0 red, 1 green, 2 blue
                    let v = image.planes[c].pixels[y * w + x]
                    out[y * w + x] = UInt16((min(1, max(0, v)) * 65535).rounded())
                }
            }
            count = image.pixelCount
        }
    }
}
