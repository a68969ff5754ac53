import Foundation
import Testing
@testable import Stacker
import TestSupport

/// Old-style JPEG TIFFs (compression 6), read through libtiff's RGBA
/// interface, against libtiff's own `tiff2rgba` (Tests/Fixtures/real).
@Suite("Old-style JPEG TIFF")
struct OldStyleJPEGTIFFTests {
    @Test("libtiff's ojpeg_zackthecat (4:2:0, one strip) decodes within 2 levels of tiff2rgba's output; ojpeg_chewey (4:2:2, 24 strips) decodes at its size")
    func againstTIFF2RGBA() throws {
        let folder = TestFiles.realFixtures
        let decoded = try ImageFile.read(folder + "/ojpeg_zackthecat_subsamp22_single_strip.tiff")
        let reference = try ImageFile.read(folder + "/ojpeg_zackthecat_subsamp22_single_strip.tiff2rgba.tif").image
        #expect(decoded.bitDepth == 8)
        #expect(decoded.image.width == reference.width && decoded.image.height == reference.height)
        #expect(decoded.image.channels == 3)
        let levels = zip(decoded.image.planes, reference.planes)
            .map { zip($0.pixels, $1.pixels).map { abs($0 - $1) * 255 }.max() ?? 0 }.max() ?? 0
        // Measured: 0 (the same libtiff path).
        #expect(levels <= 2, "max difference \(levels) levels")

        let chewey = try ImageFile.read(folder + "/ojpeg_chewey_subsamp21_multi_strip.tiff")
        #expect(chewey.image.width == 392 && chewey.image.height == 575 && chewey.image.channels == 3)
        let header = try ImageFile.readHeader(folder + "/ojpeg_chewey_subsamp21_multi_strip.tiff")
        #expect(header.width == 392 && header.height == 575 && header.channels == 3)
    }

    @Test("an old-style JPEG TIFF whose strips are damaged is refused in one line, not decoded into grey rows")
    func damaged() throws {
        var bytes = try FileBytes.read((TestFiles.realFixtures + "/ojpeg_chewey_subsamp21_multi_strip.tiff").filePath)
        // The strips lie between the JPEG tables (ending at byte 1361) and
        // the strip tables (from byte 39560): zero the later half of them.
        bytes.replaceSubrange(20_000..<39_000, with: [UInt8](repeating: 0, count: 19_000))
        do {
            _ = try ImageFile.decode(bytes: bytes, path: "damaged.tif")
            Issue.record("decoded a damaged old-style JPEG TIFF")
        } catch let error as StackerError {
            #expect(error.path == "damaged.tif")
            #expect(error.reason.contains("corrupt JPEG data"), "\(error.reason)")
        }
    }
}
