import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

@Suite("Image file failures")
struct ImageIOFailureTests {
    /// The reason of the `StackerError.unreadable` that `body` throws.
    func unreadableReason(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let StackerError.unreadable(_, reason) {
            return reason
        } catch {
            return "unexpected error \(error)"
        }
    }

    @Test("empty, random and truncated files throw with a reason")
    func malformed() throws {
        #expect(unreadableReason { _ = try ImageFile.decode(bytes: []) } == "the file is empty")
        var rng = TestRandom(seed: 7)
        let random = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &rng) }
        #expect(unreadableReason { _ = try ImageFile.decode(bytes: random) } == "not a JPEG, PNG, TIFF, FITS, HEIF/AVIF or SER file")

        let jpeg = try ImageFile.encode(IOFixtures.smooth(width: 64, height: 64, channels: 3, seed: 1), format: .jpeg)
        #expect(unreadableReason { _ = try ImageFile.decode(bytes: Array(jpeg.prefix(jpeg.count / 2))) } == "truncated JPEG data")
        let png = try ImageFile.encode(IOFixtures.smooth(width: 64, height: 64, channels: 3, seed: 1), format: .png)
        #expect(unreadableReason { _ = try ImageFile.decode(bytes: Array(png.prefix(png.count / 2))) } == "truncated PNG data")
        // JPEG magic followed by junk.
        #expect(unreadableReason { _ = try ImageFile.decode(bytes: [0xFF, 0xD8, 0xFF] + random) } != nil)
    }

    @Test("CMYK / YCCK JPEG files are refused with a clear reason")
    func cmyk() throws {
        let jpeg = try JPEGCodec.cmykSampleForTesting(width: 16, height: 8)
        #expect(unreadableReason { _ = try ImageFile.decode(bytes: jpeg) } == "CMYK JPEG files are not supported")
    }

    @Test("random bytes named .jpg and a missing file are refused with a reason")
    func files() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var rng = TestRandom(seed: 8)
        try AtomicFile.write((0..<1000).map { _ in UInt8.random(in: 0...255, using: &rng) }, to: folder + "/noise.jpg")
        #expect(unreadableReason { _ = try ImageFile.read(folder + "/noise.jpg") } == "not a JPEG, PNG, TIFF, FITS, HEIF/AVIF or SER file")
        #expect(unreadableReason { _ = try ImageFile.readHeader(folder + "/noise.jpg") } == "not a JPEG, PNG, TIFF, FITS, HEIF/AVIF or SER file")
        #expect(unreadableReason { _ = try ImageFile.read(folder + "/missing.jpg") }?.hasPrefix("cannot open the file") == true)
        #expect(unreadableReason { _ = try ImageFile.read(folder) } == "is a folder, not an image file")
    }

    @Test("a PNG with a corrupted IDAT CRC names the chunk")
    func pngCRC() throws {
        var png = try ImageFile.encode(IOFixtures.smooth(width: 16, height: 16, channels: 3, seed: 2), format: .png)
        // Find the IDAT chunk and flip a bit of its CRC.
        let idat = try #require((8..<(png.count - 4)).first { png[$0...($0 + 3)].elementsEqual("IDAT".utf8) })
        let length = png[(idat - 4)..<idat].reduce(0) { $0 << 8 | Int($1) }
        png[idat + 4 + length] ^= 0x01
        #expect(unreadableReason { _ = try ImageFile.decode(bytes: png) } == "PNG CRC error in chunk IDAT")
    }

    @Test("cutting or flipping bytes anywhere never crashes")
    func fuzz() throws {
        let image = IOFixtures.smooth(width: 24, height: 20, channels: 3, seed: 3)
        let files = [try ImageFile.encode(image, format: .jpeg),
                     try JPEGCodec.encode(image, quality: 70, path: "", progressive: true),
                     try ImageFile.encode(image, format: .png),
                     try ImageFile.encode(image, format: .png, options: EncodeOptions(bitDepth: 16))]
        var rng = TestRandom(seed: 99)
        for file in files {
            for cut in stride(from: 0, to: file.count, by: max(1, file.count / 60)) {
                _ = try? ImageFile.decode(bytes: Array(file.prefix(cut)))
            }
            for _ in 0..<150 {
                var f = file
                for _ in 0..<Int.random(in: 1...8, using: &rng) {
                    f[Int.random(in: 0..<f.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
                do { _ = try ImageFile.decode(bytes: f) } catch let e as StackerError { #expect(!e.reason.isEmpty) }
            }
        }
    }

    @Test("images over maxPixels are refused before decoding")
    func maxPixels() throws {
        let image = IOFixtures.smooth(width: 100, height: 50, channels: 3, seed: 4)
        for format in ImageFormat.allCases {
            let bytes = try ImageFile.encode(image, format: format)
            #expect(unreadableReason { _ = try ImageFile.decode(bytes: bytes, maxPixels: 4999) }
                    == "the image is 100×50 pixels, more than the limit of 0.004999 megapixels")
            #expect(try ImageFile.decode(bytes: bytes, maxPixels: 5000).image.width == 100)
        }
        // A forged JPEG header claiming 65000×65000 is refused under the default limit.
        var jpeg = try ImageFile.encode(image, format: .jpeg)
        let sof = try #require((2..<(jpeg.count - 9)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        jpeg[sof + 5] = 0xFD; jpeg[sof + 6] = 0xE8; jpeg[sof + 7] = 0xFD; jpeg[sof + 8] = 0xE8
        #expect(unreadableReason { _ = try ImageFile.decode(bytes: jpeg) }?.contains("more than the limit of 500 megapixels") == true)
    }

    @Test("bad quality, channel count and extension are invalid input")
    func invalidOptions() throws {
        let image = IOFixtures.smooth(width: 8, height: 8, channels: 3, seed: 5)
        #expect(throws: StackerError.invalidInput(path: "", reason: "JPEG quality must be between 1 and 100, not 0")) {
            _ = try ImageFile.encode(image, format: .jpeg, options: EncodeOptions(quality: 0))
        }
        let two = Image(width: 8, height: 8, channels: 2)
        #expect(throws: StackerError.self) { _ = try ImageFile.encode(two, format: .png) }
        #expect(throws: StackerError.invalidInput(path: "out.bmp", reason: "unsupported output format (use .jpg, .jpeg, .png, .tif, .tiff, .heic, .heif, .hif, .fits, .fit or .fts)")) {
            try ImageFile.write(image, to: "out.bmp")
        }
    }

    @Test("a failed write leaves no temporary file and an existing file untouched")
    func atomicWrite() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let image = IOFixtures.smooth(width: 8, height: 8, channels: 3, seed: 6)

        // Into a folder that does not exist.
        #expect(throws: StackerError.self) { try ImageFile.write(image, to: folder + "/nowhere/out.png") }
        #expect(TestFiles.listing(folder).isEmpty)

        // A successful write leaves only the file.
        try ImageFile.write(image, to: folder + "/out.png")
        #expect(TestFiles.listing(folder) == ["out.png"])
        let before = try Data(contentsOf: URL(fileURLWithPath: folder + "/out.png"))

        // Encoding fails: the existing file is untouched.
        #expect(throws: StackerError.self) {
            try ImageFile.write(Image(width: 8, height: 8, channels: 2), to: folder + "/out.png")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/out.png")) == before)

        // Rename fails (the target is a non-empty folder): temporary removed.
        try FileManager.default.createDirectory(atPath: folder + "/dir.jpg", withIntermediateDirectories: false)
        try AtomicFile.write([1, 2, 3], to: folder + "/dir.jpg/keep")
        var failed = false
        do { try ImageFile.write(image, to: folder + "/dir.jpg") } catch StackerError.writeFailed { failed = true }
        #expect(failed)
        #expect(TestFiles.listing(folder) == ["dir.jpg", "out.png"])
        #expect(TestFiles.listing(folder + "/dir.jpg") == ["keep"])
    }
}
