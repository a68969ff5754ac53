import Registration

/// SER video (the planetary and lunar capture format of FireCapture,
/// SharpCap, Genika and others): a 178-byte `LUCAM-RECORDER` header, then
/// `FrameCount` frames of equal size, then optionally one 8-byte timestamp
/// per frame (ignored).
///
/// Read: mono (ColorID 0), Bayer RGGB, GRBG, GBRG, BGGR (8…11: a gray
/// mosaic with `DecodedImage.cfa`, debayered by the pipeline after
/// calibration), RGB and BGR (100, 101: interleaved); 8-bit samples
/// (PixelDepthPerPlane 1…8) / 255, 16-bit words (9…16) / 65535 as stored,
/// not rescaled to their bit depth. Rows are stored top row first. Other
/// colour IDs (CMY mosaics) are refused.
///
/// Byte order of 16-bit samples: the specification's `LittleEndian` field
/// is used the other way round by the first SER writers, and every reader
/// since (Siril, GoQat, FireCapture) follows them: 0 means little-endian,
/// anything else big-endian. So do we.
///
/// Frame `i` is the `frameBytes` at 178 + i · `frameBytes`, read with one
/// `pread`; the rest of the file is never read. The header's frame count is
/// checked against the file size before anything is allocated.
enum SERCodec {
    /// The file ID every SER file starts with.
    static let magic: [UInt8] = Array("LUCAM-RECORDER".utf8)

    /// The header's size in bytes.
    static let headerSize = 178

    /// True when `bytes` start with `LUCAM-RECORDER`.
    static func hasMagic(_ bytes: [UInt8]) -> Bool {
        bytes.count >= magic.count && bytes[0..<magic.count].elementsEqual(magic)
    }

    /// What the header says, checked.
    struct Header: Equatable {
        var width: Int
        var height: Int
        /// 1 (mono or Bayer) or 3 (RGB, BGR).
        var channels: Int
        /// 1 or 2.
        var bytesPerSample: Int
        var bigEndian: Bool
        var frameCount: Int
        var cfa: BayerPattern?
        /// Colour samples in B, G, R order (ColorID 101).
        var bgr: Bool

        /// Bytes of one frame.
        var frameBytes: Int { width * height * channels * bytesPerSample }
    }

    /// Parses and checks the header in `bytes` (at least its 178 bytes)
    /// of a file of `fileSize` bytes.
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func header(_ bytes: [UInt8], fileSize: Int, path: String) throws -> Header {
        guard hasMagic(bytes), bytes.count >= headerSize, fileSize >= headerSize else {
            throw StackerError.unreadable(path: path, reason: "truncated SER header")
        }
        func int32(_ at: Int) -> Int {
            Int(Int32(bitPattern: UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24))
        }
        let colour = int32(18), width = int32(26), height = int32(30), depth = int32(34), count = int32(38)
        let channels: Int, cfa: BayerPattern?
        switch colour {
        case 0: (channels, cfa) = (1, nil)
        case 8: (channels, cfa) = (1, .rggb)
        case 9: (channels, cfa) = (1, .grbg)
        case 10: (channels, cfa) = (1, .gbrg)
        case 11: (channels, cfa) = (1, .bggr)
        case 100, 101: (channels, cfa) = (3, nil)
        default:
            throw StackerError.unreadable(path: path, reason: "SER colour ID \(colour) is not supported (mono, Bayer RGGB/GRBG/GBRG/BGGR, RGB or BGR)")
        }
        guard (1...16).contains(depth) else {
            throw StackerError.unreadable(path: path, reason: "SER pixel depth \(depth) is not supported (need 1…16 bits)")
        }
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw StackerError.unreadable(path: path, reason: "the SER header gives no usable image size (\(width)×\(height))")
        }
        guard count > 0 else { throw StackerError.unreadable(path: path, reason: "the SER file holds no frames (FrameCount \(count))") }
        let header = Header(width: width, height: height, channels: channels, bytesPerSample: depth > 8 ? 2 : 1,
                            bigEndian: int32(22) != 0, frameCount: count, cfa: cfa, bgr: colour == 101)
        // width · height < 2^62, but · 6 bytes may pass Int.max (a 242-byte
        // file with an Int32.max² RGB16 header trapped here), so every
        // product is checked before `frameBytes` is used.
        let (frameBytes, frameOverflow) = (width * height).multipliedReportingOverflow(by: channels * header.bytesPerSample)
        let (data, overflow) = frameBytes.multipliedReportingOverflow(by: count)
        guard !frameOverflow, !overflow, data <= fileSize - headerSize else {
            let whole = frameOverflow ? 0 : (fileSize - headerSize) / frameBytes
            throw StackerError.unreadable(path: path, reason: "truncated SER data: the header says \(count) frames of \(width)×\(height), the file holds \(whole) whole frame(s)")
        }
        return header
    }

    /// Frame `index` (from 0) of the SER file at `path`, read with one
    /// `pread` after the header's.
    /// - Throws: `StackerError.unreadable` naming `path`: a bad header, no
    ///   such frame, a frame over `maxPixels`.
    static func readFrame(_ index: Int, of path: FilePath, maxPixels: Int) throws -> DecodedImage {
        let name = path.description
        return try FileBytes.withPositionalReads(path) { size, read in
            let h = try header(try read(0, min(headerSize, size)), fileSize: size, path: name)
            guard (0..<h.frameCount).contains(index) else {
                throw StackerError.unreadable(path: name, reason: "the SER file holds \(h.frameCount) frames (0…\(h.frameCount - 1)), not a frame \(index)")
            }
            try JPEGCodec.checkSize(width: h.width, height: h.height, maxPixels: maxPixels, path: name)
            return decode(frame: try read(headerSize + index * h.frameBytes, h.frameBytes), header: h)
        }
    }

    /// The header of the SER file at `path`.
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func header(of path: FilePath) throws -> Header {
        try FileBytes.withPositionalReads(path) { size, read in
            try header(try read(0, min(headerSize, size)), fileSize: size, path: path.description)
        }
    }

    /// Frame 0 of a SER file held in memory (`ImageFile.decode(bytes:)`).
    /// - Throws: `StackerError.unreadable` naming `path`.
    static func decode(_ bytes: [UInt8], path: String, maxPixels: Int) throws -> DecodedImage {
        let h = try header(bytes, fileSize: bytes.count, path: path)
        try JPEGCodec.checkSize(width: h.width, height: h.height, maxPixels: maxPixels, path: path)
        return decode(frame: Array(bytes[headerSize..<(headerSize + h.frameBytes)]), header: h)
    }

    /// One frame's bytes as an image (see the type's description).
    static func decode(frame: [UInt8], header h: Header) -> DecodedImage {
        precondition(frame.count == h.frameBytes, "SER frame of \(frame.count) bytes, expected \(h.frameBytes)")
        var planes: [Plane]
        if h.bytesPerSample == 1 {
            planes = frame.withUnsafeBufferPointer {
                PixelConversion.planes(from: $0, width: h.width, height: h.height, channels: h.channels)
            }
        } else {
            let words = (0..<(frame.count / 2)).map { i -> UInt16 in
                let a = UInt16(frame[2 * i]), b = UInt16(frame[2 * i + 1])
                return h.bigEndian ? a << 8 | b : b << 8 | a
            }
            planes = words.withUnsafeBufferPointer {
                PixelConversion.planes(from: $0, width: h.width, height: h.height, channels: h.channels)
            }
        }
        if h.bgr { planes.swapAt(0, 2) }
        return DecodedImage(image: Image(width: h.width, height: h.height, planes: planes),
                            bitDepth: h.bytesPerSample * 8, cfa: h.cfa)
    }
}
