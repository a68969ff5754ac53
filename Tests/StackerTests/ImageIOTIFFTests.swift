import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

@Suite("TIFF files")
struct ImageIOTIFFTests {
    @Test("8-bit TIFF round trip is exact (gray and RGB)")
    func tiff8Exact() throws {
        for channels in [1, 3] {
            let image = IOFixtures.quantised(width: 37, height: 23, channels: channels, levels: 255, seed: 71)
            let bytes = try ImageFile.encode(image, format: .tiff, options: EncodeOptions(bitDepth: 8))
            #expect(ImageFormat.fromMagic(bytes) == .tiff)
            let decoded = try ImageFile.decode(bytes: bytes)
            #expect(decoded.bitDepth == 8)
            #expect(decoded.image == image)
        }
    }

    @Test("16-bit TIFF round trip is exact (gray and RGB)")
    func tiff16Exact() throws {
        for channels in [1, 3] {
            // Tall enough for several strips (strips are about 256 KiB).
            let image = IOFixtures.quantised(width: 300, height: 250, channels: channels, levels: 65535, seed: 72)
            let decoded = try ImageFile.decode(bytes: ImageFile.encode(image, format: .tiff, options: EncodeOptions(bitDepth: 16)))
            #expect(decoded.bitDepth == 16)
            #expect(decoded.image == image)
        }
    }

    @Test("32-bit float TIFF keeps values outside 0…1, negative ones too, within float epsilon")
    func tiffFloat() throws {
        for channels in [1, 3] {
            let image = IOFixtures.randomFloats(width: 41, height: 29, channels: channels, in: -3...5, seed: UInt64(73 + channels))
            let decoded = try ImageFile.decode(bytes: ImageFile.encode(image, format: .tiff, options: EncodeOptions(bitDepth: 32)))
            #expect(decoded.bitDepth == 32)
            // Float samples are stored as they are and deflate is lossless:
            // the error bound is one float epsilon relative to the value.
            #expect(IOFixtures.epsilons(image, decoded.image) <= 1)
        }
    }

    @Test("hand-made layouts decode: separate planes, tiles, alpha, big-endian, float")
    func layouts() throws {
        let w = 13, h = 7
        func values(_ s: Int, _ max: UInt32) -> [UInt32] { (0..<(w * h)).map { UInt32(($0 * 37 + s * 101) % Int(max + 1)) } }
        let rgb16 = (0..<3).map { values($0, 65535) }
        let expected16 = Image(width: w, height: h, planes: rgb16.map { Plane(width: w, height: h, pixels: $0.map { Float($0) / 65535 }) })
        let cases: [(String, HandMadeTIFF, [[UInt32]])] = [
            ("contiguous strips", HandMadeTIFF(width: w, height: h, samplesPerPixel: 3, bits: 16, photometric: 2, rowsPerStrip: 3), rgb16),
            ("separate strips", HandMadeTIFF(width: w, height: h, samplesPerPixel: 3, bits: 16, photometric: 2, planar: 2, rowsPerStrip: 2), rgb16),
            ("contiguous tiles", HandMadeTIFF(width: w, height: h, samplesPerPixel: 3, bits: 16, photometric: 2, tile: (16, 16)), rgb16),
            ("separate tiles", HandMadeTIFF(width: w, height: h, samplesPerPixel: 3, bits: 16, photometric: 2, planar: 2, tile: (16, 16)), rgb16),
            ("big-endian", HandMadeTIFF(width: w, height: h, samplesPerPixel: 3, bits: 16, photometric: 2, rowsPerStrip: 4, bigEndian: true), rgb16),
            ("RGBA, alpha dropped", HandMadeTIFF(width: w, height: h, samplesPerPixel: 4, bits: 16, photometric: 2, extraSamples: [2]),
             rgb16 + [values(9, 65535)]),
            ("separate RGBA", HandMadeTIFF(width: w, height: h, samplesPerPixel: 4, bits: 16, photometric: 2, planar: 2, extraSamples: [2]),
             rgb16 + [values(9, 65535)]),
        ]
        for (name, tiff, samples) in cases {
            let decoded = try ImageFile.decode(bytes: tiff.bytes(samples: samples), path: name)
            #expect(decoded.image == expected16, "\(name)")
            #expect(decoded.bitDepth == 16)
        }
        // Gray + alpha, 8-bit: one plane.
        let gray = values(0, 255)
        let ga = HandMadeTIFF(width: w, height: h, samplesPerPixel: 2, bits: 8, photometric: 1, extraSamples: [1])
        let decoded = try ImageFile.decode(bytes: ga.bytes(samples: [gray, values(5, 255)]))
        #expect(decoded.image == Image(width: w, height: h, planes: [Plane(width: w, height: h, pixels: gray.map { Float($0) / 255 })]))
        // Float, big-endian, tiled.
        let floats = (0..<(w * h)).map { Float($0) / 10 - 3 }
        let ft = HandMadeTIFF(width: w, height: h, samplesPerPixel: 1, bits: 32, photometric: 1, sampleFormat: 3,
                              tile: (16, 16), bigEndian: true)
        let fd = try ImageFile.decode(bytes: ft.bytes(samples: [floats.map(\.bitPattern)]))
        #expect(fd.image.planes[0].pixels == floats)
        #expect(fd.bitDepth == 32)
    }

    @Test("palette, CMYK, 1-bit, 12-bit and signed TIFF files are refused with a clear reason")
    func refusedLayouts() throws {
        let w = 4, h = 3
        let cases: [(HandMadeTIFF, String)] = [
            (HandMadeTIFF(width: w, height: h, samplesPerPixel: 1, bits: 8, photometric: 3),
             "palette (indexed colour) TIFF files are not supported"),
            (HandMadeTIFF(width: w, height: h, samplesPerPixel: 4, bits: 8, photometric: 5), "CMYK TIFF files are not supported"),
            (HandMadeTIFF(width: w, height: h, samplesPerPixel: 1, bits: 1, photometric: 1),
             "1-bit integer TIFF samples are not supported (only 8 and 16)"),
            (HandMadeTIFF(width: w, height: h, samplesPerPixel: 1, bits: 12, photometric: 1),
             "12-bit integer TIFF samples are not supported (only 8 and 16)"),
            (HandMadeTIFF(width: w, height: h, samplesPerPixel: 1, bits: 16, photometric: 1, sampleFormat: 2),
             "signed integer TIFF samples are not supported"),
        ]
        for (tiff, reason) in cases {
            let bytes = tiff.bytes(samples: Array(repeating: Array(repeating: 1, count: w * h), count: tiff.samplesPerPixel))
            let got = IOFixtures.unreadable { _ = try ImageFile.decode(bytes: bytes, path: "odd.tif") }
            #expect(got?.path == "odd.tif")
            #expect(got?.reason == reason)
            #expect(IOFixtures.unreadable { _ = try TIFFCodec.header(bytes, path: "odd.tif") }?.reason == reason)
        }
    }

    @Test("truncated TIFF, a bogus IFD offset and a decompression-bomb header are unreadable, naming the file")
    func malformed() throws {
        let image = IOFixtures.smooth(width: 64, height: 48, channels: 3, seed: 74)
        let good = try ImageFile.encode(image, format: .tiff, options: EncodeOptions(bitDepth: 16))
        for cut in [8, 100, good.count / 2, good.count - 10] {
            let got = IOFixtures.unreadable { _ = try ImageFile.decode(bytes: Array(good.prefix(cut)), path: "cut.tif") }
            #expect(got?.path == "cut.tif")
            #expect(got?.reason.contains("TIFF") == true, "\(got?.reason ?? "decoded")")
        }
        var bogus = good
        bogus.replaceSubrange(4..<8, with: [0x00, 0xFF, 0xFF, 0x7F])  // IFD far past the end
        let got = IOFixtures.unreadable { _ = try ImageFile.decode(bytes: bogus, path: "bogus.tif") }
        #expect(got?.path == "bogus.tif")
        #expect(got?.reason.hasPrefix("corrupt TIFF data") == true, "\(got?.reason ?? "decoded")")

        // Header says 100000 × 100000 (10 gigapixels) over 4 × 3 pixels of data.
        let bomb = HandMadeTIFF(width: 4, height: 3, samplesPerPixel: 1, bits: 8, photometric: 1, headerSize: (100_000, 100_000))
            .bytes(samples: [Array(repeating: 7, count: 12)])
        let refused = IOFixtures.unreadable { _ = try ImageFile.decode(bytes: bomb, path: "bomb.tif") }
        #expect(refused?.path == "bomb.tif")
        #expect(refused?.reason == "the image is 100000×100000 pixels, more than the limit of 500 megapixels")
    }

    @Test("flipping bytes anywhere in a TIFF never crashes")
    func mutations() throws {
        let image = IOFixtures.smooth(width: 24, height: 20, channels: 3, seed: 75)
        var rng = TestRandom(seed: 76)
        for depth in [8, 16, 32] {
            let file = try ImageFile.encode(image, format: .tiff, options: EncodeOptions(bitDepth: depth))
            for _ in 0..<100 {
                var f = file
                for _ in 0..<Int.random(in: 1...6, using: &rng) {
                    f[Int.random(in: 0..<f.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
                do { _ = try ImageFile.decode(bytes: f, maxPixels: 1 << 20) } catch let e as StackerError { #expect(!e.reason.isEmpty) }
            }
        }
    }

    @Test("readHeader agrees with decode, and ImageFile.write leaves only the finished file")
    func filesOnDisk() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (channels, depth) in [(1, 8), (3, 16), (3, 32)] {
            let image = IOFixtures.smooth(width: 33, height: 21, channels: channels, seed: 77)
            let path = folder + "/out-\(channels)-\(depth).tiff"
            try ImageFile.write(image, to: path, options: EncodeOptions(bitDepth: depth))
            let header = try ImageFile.readHeader(path)
            let decoded = try ImageFile.read(path)
            #expect(header.width == 33 && header.height == 21 && header.channels == channels)
            #expect(decoded.image.channels == channels && decoded.bitDepth == depth)
        }
        #expect(TestFiles.listing(folder) == ["out-1-8.tiff", "out-3-16.tiff", "out-3-32.tiff"])
        // A bad depth fails before anything is written; a missing folder leaves no temporary.
        let image = IOFixtures.smooth(width: 8, height: 8, channels: 3, seed: 78)
        #expect(throws: StackerError.invalidInput(path: folder + "/bad.tif", reason: "TIFF bit depth must be 8, 16 or 32 (float), not 12")) {
            try ImageFile.write(image, to: folder + "/bad.tif", options: EncodeOptions(bitDepth: 12))
        }
        #expect(throws: StackerError.self) { try ImageFile.write(image, to: folder + "/nowhere/out.tif") }
        #expect(TestFiles.listing(folder).count == 3)
    }
}
