import Foundation
import Testing
@testable import Stacker

/// Every JPEG layout libjpeg decodes is read (Tests/Fixtures/jpeg-layouts):
/// where TurboJPEG's header helper has no name for the chroma sampling,
/// the file goes through its plain RGB decode instead of being called corrupt.
@Suite("JPEG layouts")
struct JPEGLayoutTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/jpeg-layouts").path

    @Test("4:1:0, asymmetric, RGB and RGB-subsampled, 4:4:0 and 4:1:1 files decode as djpeg does, through every path")
    func layoutsMatchDjpeg() throws {
        for name in ["410", "asym", "rgbsub", "rgb", "440", "411"] {
            let path = Self.folder + "/\(name).jpg"
            let reference = try ImageFile.read(Self.folder + "/\(name).djpeg.png").image
            let decoded = try ImageFile.read(path)
            #expect(decoded.bitDepth == 8)
            let error = IOFixtures.error(decoded.image, reference)
            #expect(error.max * 255 <= 1, "\(name): max \(error.max * 255) levels from djpeg")
            // The pipeline's byte path (Y, Cb, Cr asked for, RGB given where the layout has none to give).
            let frame = try DecodedFrame.read(path.filePath, maxPixels: 1 << 20, form: .ycbcr(factor: nil))
            let framed = IOFixtures.error(frame.image, reference)
            #expect(framed.max * 255 <= 2, "\(name): frame max \(framed.max * 255) levels from djpeg")
            let header = try ImageFile.readHeader(path)
            #expect(header.width == 96 && header.height == 64 && header.channels == 3)
        }
    }

    @Test("a 12-bit JPEG is named as such, not called corrupt")
    func twelveBit() {
        do {
            _ = try ImageFile.read(Self.folder + "/12bit-header.jpg")
            Issue.record("a 12-bit JPEG was read")
        } catch let e as StackerError {
            #expect(e.reason == "12-bit JPEG is not supported")
        } catch { Issue.record("\(error)") }
    }
}
