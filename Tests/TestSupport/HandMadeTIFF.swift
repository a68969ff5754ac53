/// A baseline TIFF written by hand (uncompressed, one IFD), for layouts our
/// encoder does not write — separate planes, tiles, alpha, big-endian,
/// palettes — and for files whose tables lie about the data.
public struct HandMadeTIFF {
    public var width: Int
    public var height: Int
    public var samplesPerPixel: Int
    /// Bits per sample.
    public var bits: Int
    /// PhotometricInterpretation: 1 gray, 2 RGB, 3 palette, 5 CMYK.
    public var photometric: Int
    /// SampleFormat: 1 unsigned, 2 signed, 3 float.
    public var sampleFormat: Int
    /// PlanarConfiguration: 1 contiguous, 2 separate planes.
    public var planar: Int
    /// Tile width and length; nil writes strips.
    public var tile: (Int, Int)?
    /// Rows per strip (strips only); nil is one strip of every row.
    public var rowsPerStrip: Int?
    public var bigEndian: Bool
    /// ExtraSamples values (e.g. [2] = unassociated alpha), or nil.
    public var extraSamples: [Int]?
    /// Width and length written in the header instead of the true ones (lying headers).
    public var headerSize: (Int, Int)?

    public init(width: Int, height: Int, samplesPerPixel: Int, bits: Int, photometric: Int, sampleFormat: Int = 1,
                planar: Int = 1, tile: (Int, Int)? = nil, rowsPerStrip: Int? = nil, bigEndian: Bool = false,
                extraSamples: [Int]? = nil, headerSize: (Int, Int)? = nil) {
        self.width = width
        self.height = height
        self.samplesPerPixel = samplesPerPixel
        self.bits = bits
        self.photometric = photometric
        self.sampleFormat = sampleFormat
        self.planar = planar
        self.tile = tile
        self.rowsPerStrip = rowsPerStrip
        self.bigEndian = bigEndian
        self.extraSamples = extraSamples
        self.headerSize = headerSize
    }

    /// Appends `v` as `size` bytes in the file's byte order.
    private func put(_ v: UInt32, _ size: Int, into buffer: inout [UInt8]) {
        let be = (0..<size).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) }
        buffer += bigEndian ? be : be.reversed()
    }

    /// The file, with `samples[s][y * width + x]` the raw value (integer,
    /// or a float's bit pattern) of sample s; strips or tiles as the
    /// layout says, tiles padded with zeros past the image.
    public func bytes(samples: [[UInt32]]) -> [UInt8] {
        let separate = planar == 2
        let perChunk = separate ? 1 : samplesPerPixel
        let (cw, ch) = tile ?? (width, rowsPerStrip ?? height)
        let across = (width + cw - 1) / cw, down = (height + ch - 1) / ch
        var chunks: [[UInt8]] = []
        for plane in 0..<(separate ? samplesPerPixel : 1) {
            for index in 0..<(across * down) {
                let x0 = (index % across) * cw, y0 = (index / across) * ch
                let rows = tile == nil ? min(ch, height - y0) : ch
                var chunk = [UInt8]()
                if bits % 8 == 0 {
                    for y in y0..<(y0 + rows) {
                        for x in x0..<(x0 + cw) {
                            for s in 0..<perChunk {
                                let sample = separate ? plane : s
                                let v = x < width && y < height ? samples[sample][y * width + x] : 0
                                put(v, bits / 8, into: &chunk)
                            }
                        }
                    }
                } else {
                    chunk = [UInt8](repeating: 0, count: (cw * perChunk * bits + 7) / 8 * rows)
                }
                chunks.append(chunk)
            }
        }
        return bytes(chunks: chunks)
    }

    /// The file with `chunks` as its strips or tiles, stored one after the
    /// other after the header, whatever the geometry says; `byteCounts`
    /// overrides their true lengths in the table.
    public func bytes(chunks: [[UInt8]], byteCounts: [Int]? = nil) -> [UInt8] {
        var out = [UInt8]()
        out += bigEndian ? [0x4D, 0x4D, 0x00, 0x2A] : [0x49, 0x49, 0x2A, 0x00]
        put(0, 4, into: &out)  // IFD offset, patched below
        var offsets: [UInt32] = []
        for chunk in chunks {
            offsets.append(UInt32(out.count))
            out += chunk
        }
        let counts = (byteCounts ?? chunks.map(\.count)).map { UInt32($0) }
        if out.count % 2 == 1 { out.append(0) }
        // Entries: (tag, type 3 = SHORT / 4 = LONG, values).
        var entries: [(Int, Int, [UInt32])] = [
            (256, 4, [UInt32((headerSize ?? (width, height)).0)]),
            (257, 4, [UInt32((headerSize ?? (width, height)).1)]),
            (258, 3, Array(repeating: UInt32(bits), count: samplesPerPixel)),
            (259, 3, [1]),
            (262, 3, [UInt32(photometric)]),
            (277, 3, [UInt32(samplesPerPixel)]),
            (284, 3, [UInt32(planar)]),
            (339, 3, Array(repeating: UInt32(sampleFormat), count: samplesPerPixel)),
        ]
        if let tile {
            entries += [(322, 4, [UInt32(tile.0)]), (323, 4, [UInt32(tile.1)]), (324, 4, offsets), (325, 4, counts)]
        } else {
            entries += [(273, 4, offsets), (278, 4, [UInt32(rowsPerStrip ?? height)]), (279, 4, counts)]
        }
        if photometric == 3 { entries.append((320, 3, Array(repeating: 0x8000, count: 3 << bits))) }
        if let extraSamples { entries.append((338, 3, extraSamples.map(UInt32.init))) }
        entries.sort { $0.0 < $1.0 }
        let ifd = out.count
        var patch = [UInt8]()
        put(UInt32(ifd), 4, into: &patch)
        out.replaceSubrange(4..<8, with: patch)
        var extra = [UInt8]()
        let extraStart = ifd + 2 + 12 * entries.count + 4
        put(UInt32(entries.count), 2, into: &out)
        for (tag, type, values) in entries {
            let size = type == 3 ? 2 : 4
            put(UInt32(tag), 2, into: &out)
            put(UInt32(type), 2, into: &out)
            put(UInt32(values.count), 4, into: &out)
            if values.count * size <= 4 {
                var inline = [UInt8]()
                for v in values { put(v, size, into: &inline) }
                out += inline + [UInt8](repeating: 0, count: 4 - inline.count)
            } else {
                put(UInt32(extraStart + extra.count), 4, into: &out)
                for v in values { put(v, size, into: &extra) }
            }
        }
        put(0, 4, into: &out)  // no next IFD
        return out + extra
    }
}
