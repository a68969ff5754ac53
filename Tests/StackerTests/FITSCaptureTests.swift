import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

/// FITS as capture and archive software writes it: `ROWORDER`, cubes,
/// images in extensions, tile compression, gzip. Files are built by hand
/// (`HandMadeFITS`), except the tile-compressed one (astropy, see
/// `Tests/Fixtures/fits/make-fixtures.py`).
@Suite("FITS capture layouts")
struct FITSCaptureTests {
    /// 16-bit samples of a `w` × `h` picture, row 0 the top: every pixel different.
    static func picture(_ w: Int, _ h: Int, seed: Int = 0) -> [UInt16] {
        (0..<(w * h)).map { i in UInt16((i % w * 1237 + i / w * 7919 + seed * 4099) % 65536) }
    }

    /// Stored bytes (BITPIX 16, BZERO 32768) of `rows` given top row first,
    /// written bottom row first when `bottomUp`.
    static func data16(_ samples: [UInt16], width w: Int, bottomUp: Bool) -> [UInt8] {
        let h = samples.count / w
        let order = bottomUp ? Array((0..<h).reversed()) : Array(0..<h)
        let stored = order.flatMap { y in samples[(y * w)..<((y + 1) * w)] }
        return HandMadeFITS.bigEndian(stored.map { UInt64($0 ^ 0x8000) }, size: 2)
    }

    /// An extension HDU's header and data, as `HandMadeFITS.file` pads them.
    static func imageExtension(bitpix: Int, axes: [Int], data: [UInt8], xtension: String = "IMAGE   ") -> [UInt8] {
        var cards = HandMadeFITS.cards(bitpix: bitpix, axes: axes)
        cards[0] = "XTENSION= '\(xtension)'"
        return HandMadeFITS.file(cards: cards + ["PCOUNT  =                    0", "GCOUNT  =                    1",
                                                 "BZERO   =                32768"], data: data)
    }

    static let bzero = "BZERO   =                32768"

    @Test("ROWORDER = 'TOP-DOWN' is read as stored; 'BOTTOM-UP' and none flip: all three give the same upright image")
    func rowOrder() throws {
        let w = 7, h = 5
        let truth = Self.picture(w, h)
        let expected = truth.map { Float($0) / 65535 }
        let cards = HandMadeFITS.cards(bitpix: 16, axes: [w, h]) + [Self.bzero]
        let topDown = HandMadeFITS.file(cards: cards + ["ROWORDER= 'TOP-DOWN'"], data: Self.data16(truth, width: w, bottomUp: false))
        let bottomUp = HandMadeFITS.file(cards: cards + ["ROWORDER= 'BOTTOM-UP'"], data: Self.data16(truth, width: w, bottomUp: true))
        let absent = HandMadeFITS.file(cards: cards, data: Self.data16(truth, width: w, bottomUp: true))
        for (name, bytes) in [("TOP-DOWN", topDown), ("BOTTOM-UP", bottomUp), ("absent", absent)] {
            let decoded = try ImageFile.decode(bytes: bytes, path: "\(name).fits")
            #expect(decoded.image.planes[0].pixels == expected, "\(name)")
        }
        // The same TOP-DOWN bytes without the keyword come out upside down.
        let unlabelled = HandMadeFITS.file(cards: cards, data: Self.data16(truth, width: w, bottomUp: false))
        #expect(try ImageFile.decode(bytes: unlabelled).image.planes[0].pixels != expected)
    }

    @Test("a cube of NAXIS3 = 5 is 5 frames, path#k is plane k, a sixth frame is refused naming the file")
    func cube() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(folder) }
        let w = 6, h = 4, n = 5
        let frames = (0..<n).map { Self.picture(w, h, seed: $0) }
        let data = frames.flatMap { Self.data16($0, width: w, bottomUp: false) }
        let bytes = HandMadeFITS.file(cards: HandMadeFITS.cards(bitpix: 16, axes: [w, h, n]) + [Self.bzero, "ROWORDER= 'TOP-DOWN'"],
                                      data: data)
        let path = folder + "/cube.fits"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try ImageFile.frameCount(path) == n)
        #expect(try ImageFile.readHeader(path) == (width: w, height: h, channels: 1))
        for k in 0..<n {
            let frame = try ImageFile.readFrame(k, of: path)
            #expect(frame.bitDepth == 16 && frame.image.channels == 1)
            #expect(frame.image.planes[0].pixels == frames[k].map { Float($0) / 65535 }, "frame \(k)")
        }
        let beyond = IOFixtures.unreadable { _ = try ImageFile.readFrame(n, of: path) }
        #expect(beyond?.path == path)
        #expect(beyond?.reason == "the FITS cube holds 5 frames (0…4), not a frame 5")
        let sources = FrameSource.frames(in: [path])
        #expect(sources.count == n)
        #expect(sources.map { $0.name(at: 0) } == (0..<n).map { "\(path)#\($0)" })
        // An RGB file (NAXIS3 = 3) stays one colour frame.
        let rgb = HandMadeFITS.file(cards: HandMadeFITS.cards(bitpix: 16, axes: [w, h, 3]) + [Self.bzero],
                                    data: [UInt8](repeating: 0, count: w * h * 3 * 2))
        try Data(rgb).write(to: URL(fileURLWithPath: folder + "/rgb.fits"))
        #expect(try ImageFile.frameCount(folder + "/rgb.fits") == 1)
    }

    @Test("a cube stacks as its frames: the average of 4 planes, each reported as cube.fits#k")
    func cubeStacks() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(folder) }
        let w = 64, h = 48, n = 4
        let frames = (0..<n).map { Self.picture(w, h, seed: $0) }
        let bytes = HandMadeFITS.file(cards: HandMadeFITS.cards(bitpix: 16, axes: [w, h, n]) + [Self.bzero],
                                      data: frames.flatMap { Self.data16($0, width: w, bottomUp: true) })
        let path = folder + "/cube.fits"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        var options = StackOptions()
        options.alignment = .none
        options.threads = 2
        let result = try stack(FrameSource.frames(in: [path]), options: options)
        #expect(result.frames.map(\.path) == (0..<n).map { "\(path)#\($0)" })
        let mean = (0..<(w * h)).map { i in frames.reduce(Float(0)) { $0 + Float($1[i]) / 65535 } / Float(n) }
        let worst = zip(result.image.planes[0].pixels, mean).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1e-5, "largest difference from the planes' mean: \(worst)")
    }

    @Test("a calibration cube gives all its planes to the master, not its first alone")
    func calibrationCube() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(folder) }
        let w = 8, h = 6
        let levels: [UInt16] = [6554, 13107, 39321]  // 0.1, 0.2, 0.6 of 65535
        let data = levels.flatMap { v in Self.data16([UInt16](repeating: v, count: w * h), width: w, bottomUp: true) }
        // A 4-plane cube is a stack of darks (NAXIS3 = 3 would be RGB).
        let cube = folder + "/darks4.fits"
        try Data(HandMadeFITS.file(cards: HandMadeFITS.cards(bitpix: 16, axes: [w, h, 4]) + [Self.bzero],
                                   data: data + Self.data16([UInt16](repeating: 13107, count: w * h), width: w, bottomUp: true)))
            .write(to: URL(fileURLWithPath: cube))
        let master = try MasterFrame.build(paths: [cube], role: "dark", kernel: .median, width: w, height: h, channels: 1,
                                           maxPixels: 1 << 20, memoryLimit: 1 << 24, temporaryDirectory: folder, threads: 2)
        // Median of 0.1, 0.2, 0.6, 0.2: 0.2 (plane 0 alone would be 0.1).
        #expect(master.planes[0].pixels.allSatisfy { abs($0 - 0.2) < 1e-4 }, "\(master.planes[0].pixels.prefix(3))")
    }

    @Test("an empty primary HDU: the first image extension is read, past a binary table; none is a clear error")
    func extensions() throws {
        let w = 5, h = 3
        let truth = Self.picture(w, h)
        let primary = HandMadeFITS.file(cards: HandMadeFITS.cards(bitpix: 8, axes: []) + ["EXTEND  =                    T"], data: [])
        let image = Self.imageExtension(bitpix: 16, axes: [w, h], data: Self.data16(truth, width: w, bottomUp: true))
        var table = HandMadeFITS.cards(bitpix: 8, axes: [4, 2])
        table[0] = "XTENSION= 'BINTABLE'"
        let tableHDU = HandMadeFITS.file(cards: table + ["PCOUNT  =                    0", "GCOUNT  =                    1",
                                                         "TFIELDS =                    1", "TFORM1  = '4A      '"],
                                         data: Array("abcdefgh".utf8))
        for (name, bytes) in [("image first", primary + image), ("table first", primary + tableHDU + image)] {
            let decoded = try ImageFile.decode(bytes: bytes, path: "mef.fits")
            #expect(decoded.image.planes[0].pixels == truth.map { Float($0) / 65535 }, "\(name)")
            #expect(try FITSCodec.header(bytes, path: "mef.fits").hdu == (name == "image first" ? 2 : 3))
        }
        let alone = IOFixtures.unreadable { _ = try ImageFile.decode(bytes: primary, path: "empty.fits") }
        #expect(alone?.path == "empty.fits")
        #expect(alone?.reason == "the FITS file has no image: its primary HDU is empty (NAXIS = 0) and no extension follows")
        let onlyTable = IOFixtures.unreadable { _ = try ImageFile.decode(bytes: primary + tableHDU, path: "table.fits") }
        #expect(onlyTable?.reason == "the FITS file has no image: its primary HDU is empty (NAXIS = 0) and none of its 1 extension(s) is an image")
    }

    @Test("a RICE tile-compressed .fz (astropy/fpack layout) decodes through cfitsio to its exact pixels")
    func tileCompressed() throws {
        let path = TestFiles.packageRoot + "/Tests/Fixtures/fits/tile-compressed-rice.fz"
        let w = 37, h = 23
        let decoded = try ImageFile.read(path)
        #expect(decoded.bitDepth == 16)
        #expect(decoded.image.width == w && decoded.image.height == h && decoded.image.channels == 1)
        // make-fixtures.py: stored row y (0 = bottom) holds (x·1237 + y·7919) mod 65536.
        let expected = (0..<(w * h)).map { i -> Float in
            let x = i % w, y = h - 1 - i / w
            return Float((x * 1237 + y * 7919) % 65536) / 65535
        }
        #expect(decoded.image.planes[0].pixels == expected)
        #expect(try ImageFile.readHeader(path) == (width: w, height: h, channels: 1))
        #expect(try ImageFile.frameCount(path) == 1)
    }

    @Test("a gzip-compressed FITS is refused by name, with what to do")
    func gzip() throws {
        let bytes: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3] + [UInt8](repeating: 0, count: 20)
        let fits = IOFixtures.unreadable { _ = try ImageFile.decode(bytes: bytes, path: "m31.fits.gz") }
        #expect(fits?.path == "m31.fits.gz")
        #expect(fits?.reason == "gzip-compressed FITS: gunzip it first")
        let other = IOFixtures.unreadable { _ = try ImageFile.decode(bytes: bytes, path: "photos.gz") }
        #expect(other?.reason == "a gzip-compressed file, not an image: gunzip it first")
    }
}
