import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

@Suite("Image file codecs")
struct ImageIOCodecTests {
    @Test("JPEG at quality 95 keeps the size and stays within 2/255 mean error on a smooth image")
    func jpegRoundTripColour() throws {
        // 4:4:4 at q95 on a smooth image: the quantisation error is well under
        // one 8-bit step on average; 2/255 leaves room for the 8-bit rounding.
        let image = IOFixtures.smooth(width: 67, height: 45, channels: 3, seed: 1)
        let bytes = try ImageFile.encode(image, format: .jpeg, options: EncodeOptions(quality: 95))
        let decoded = try ImageFile.decode(bytes: bytes)
        #expect(decoded.image.width == 67 && decoded.image.height == 45)
        #expect(decoded.image.channels == 3)
        #expect(decoded.bitDepth == 8 && decoded.orientation == 1 && decoded.exif == nil)
        let err = ImageMetrics.meanAbsoluteError(image, decoded.image)
        #expect(err < 2.0 / 255, "mean abs error \(err * 255)/255")
    }

    @Test("JPEG below quality 90 (4:2:0) still decodes to the right size with a bounded error")
    func jpegRoundTripSubsampled() throws {
        // q75 4:2:0 on a smooth image: chroma is halved but smooth, so the
        // mean error stays below 4/255.
        let image = IOFixtures.smooth(width: 33, height: 17, channels: 3, seed: 2)
        let decoded = try ImageFile.decode(bytes: ImageFile.encode(image, format: .jpeg, options: EncodeOptions(quality: 75)))
        #expect(decoded.image.width == 33 && decoded.image.height == 17)
        #expect(ImageMetrics.meanAbsoluteError(image, decoded.image) < 4.0 / 255)
    }

    @Test("a gray image round-trips as a grayscale JPEG with one plane")
    func jpegRoundTripGray() throws {
        let image = IOFixtures.smooth(width: 40, height: 30, channels: 1, seed: 3)
        let bytes = try ImageFile.encode(image, format: .jpeg)
        let decoded = try ImageFile.decode(bytes: bytes)
        #expect(decoded.image.channels == 1)
        #expect(ImageMetrics.meanAbsoluteError(image, decoded.image) < 2.0 / 255)
    }

    @Test("progressive 4:2:0 JPEG decodes like baseline")
    func jpegProgressive() throws {
        let image = IOFixtures.smooth(width: 50, height: 38, channels: 3, seed: 4)
        let baseline = try ImageFile.decode(bytes: JPEGCodec.encode(image, quality: 80, path: ""))
        let progressive = try ImageFile.decode(bytes: JPEGCodec.encode(image, quality: 80, path: "", progressive: true))
        // Same coefficients, different entropy coding: identical pixels.
        #expect(progressive.image == baseline.image)
    }

    @Test("a 1×1 image round-trips")
    func jpegTiny() throws {
        let image = IOFixtures.smooth(width: 1, height: 1, channels: 3, seed: 4)
        let decoded = try ImageFile.decode(bytes: ImageFile.encode(image, format: .jpeg))
        #expect(decoded.image.width == 1 && decoded.image.height == 1)
    }

    @Test("8-bit PNG round trip is exact (RGB and gray)")
    func png8Exact() throws {
        for channels in [1, 3] {
            let image = IOFixtures.quantised(width: 31, height: 19, channels: channels, levels: 255, seed: 5)
            let decoded = try ImageFile.decode(bytes: ImageFile.encode(image, format: .png))
            #expect(decoded.bitDepth == 8)
            #expect(decoded.image == image)
        }
    }

    @Test("16-bit PNG round trip is exact (values k/65535)")
    func png16Exact() throws {
        for channels in [1, 3] {
            let image = IOFixtures.quantised(width: 23, height: 29, channels: channels, levels: 65535, seed: 6)
            let bytes = try ImageFile.encode(image, format: .png, options: EncodeOptions(bitDepth: 16))
            let decoded = try ImageFile.decode(bytes: bytes)
            #expect(decoded.bitDepth == 16)
            #expect(decoded.image == image)
        }
    }

    @Test("encoding clamps out-of-range samples and maps NaN to 0")
    func clamping() throws {
        let plane = Plane(width: 4, height: 1, pixels: [-0.5, 1.5, .nan, 0.5])
        let decoded = try ImageFile.decode(bytes: ImageFile.encode(Image(width: 4, height: 1, planes: [plane]), format: .png))
        #expect(decoded.image.planes[0].pixels == [0, 1, 0, 128.0 / 255])
    }

    @Test("palette PNG with tRNS expands to RGB and drops alpha")
    func pngPalette() throws {
        let palette: [UInt8] = [255, 0, 0, 0, 255, 0, 0, 0, 255]
        let png = HandMadePNG.file(width: 3, height: 2, bitDepth: 8, colorType: 3,
                                         rows: [[0, 1, 2], [2, 1, 0]], palette: palette, trns: [0, 128])
        let d = try ImageFile.decode(bytes: png)
        #expect(d.image.channels == 3 && d.bitDepth == 8)
        #expect(d.image.planes[0].pixels == [1, 0, 0, 0, 0, 1])
        #expect(d.image.planes[2].pixels == [0, 0, 1, 1, 0, 0])
    }

    @Test("gray+alpha and RGBA PNGs drop alpha; 16-bit RGBA keeps 16 bits")
    func pngAlpha() throws {
        let ga = HandMadePNG.file(width: 2, height: 1, bitDepth: 8, colorType: 4, rows: [[10, 99, 200, 7]])
        let g = try ImageFile.decode(bytes: ga)
        #expect(g.image.channels == 1)
        #expect(g.image.planes[0].pixels == [10.0 / 255, 200.0 / 255])

        let rgba16 = HandMadePNG.file(width: 1, height: 1, bitDepth: 16, colorType: 6,
                                            rows: [[0x12, 0x34, 0xFF, 0xFF, 0x00, 0x01, 0xAB, 0xCD]])
        let c = try ImageFile.decode(bytes: rgba16)
        #expect(c.bitDepth == 16 && c.image.channels == 3)
        #expect(c.image.planes.map { $0.pixels[0] } == [Float(0x1234) / 65535, 1, 1.0 / 65535])
    }

    @Test("1-bit and 4-bit gray PNGs scale to the 8-bit range")
    func pngLowBitGray() throws {
        let one = HandMadePNG.file(width: 8, height: 1, bitDepth: 1, colorType: 0, rows: [[0b1010_0000]])
        #expect(try ImageFile.decode(bytes: one).image.planes[0].pixels == [1, 0, 1, 0, 0, 0, 0, 0])
        let four = HandMadePNG.file(width: 2, height: 1, bitDepth: 4, colorType: 0, rows: [[0xF3]])
        #expect(try ImageFile.decode(bytes: four).image.planes[0].pixels == [1, Float(0x33) / 255])
    }

    @Test("readHeader gives size and channels without decoding")
    func header() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let image = IOFixtures.smooth(width: 20, height: 10, channels: 1, seed: 7)
        try ImageFile.write(image, to: folder + "/a.png")
        #expect(try ImageFile.readHeader(folder + "/a.png") == (20, 10, 1))
        let jpeg = try ImageFile.encode(IOFixtures.smooth(width: 20, height: 10, channels: 3, seed: 8), format: .jpeg)
        try AtomicFile.write(jpeg, to: folder + "/b.jpg")
        #expect(try ImageFile.readHeader(folder + "/b.jpg") == (20, 10, 3))
        let rotated = IOFixtures.splicingAPP1(EXIF.header + IOFixtures.tiff(orientation: 6, littleEndian: true), into: jpeg)
        try AtomicFile.write(rotated, to: folder + "/c.jpg")
        #expect(try ImageFile.readHeader(folder + "/c.jpg") == (10, 20, 3))
    }

    @Test("write then read through files picks the format from the extension")
    func fileRoundTrip() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let image = IOFixtures.quantised(width: 9, height: 7, channels: 3, levels: 255, seed: 9)
        try ImageFile.write(image, to: folder + "/x.PNG")
        #expect(try ImageFile.read(folder + "/x.PNG").image == image)
        try ImageFile.write(image, to: folder + "/x.jpeg")
        #expect(try ImageFile.read(folder + "/x.jpeg").image.width == 9)
        #expect(TestFiles.listing(folder) == ["x.PNG", "x.jpeg"])
    }
}
