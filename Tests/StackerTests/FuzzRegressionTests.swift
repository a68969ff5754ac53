import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

/// Replays the fuzzing corpus (`Fuzz/corpus/{jpeg,png,tiff,fits,heif,ser,exif,registration}/`) and every
/// input the fuzzer ever found a problem with (`Fuzz/regressions/`) through
/// the decoders. See docs/fuzzing.md.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// The same pixel limit as the fuzz harness (Fuzz/FuzzHarness.swift).
    static let maxPixels = 1 << 22

    static let root = URL(fileURLWithPath: TestFiles.packageRoot)

    /// Every regular file under `Fuzz/<folder>` (recursively), sorted.
    static func files(in folder: String) -> [URL] {
        let base = root.appendingPathComponent("Fuzz").appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey]) else {
            return []
        }
        return walker.compactMap { $0 as? URL }
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
            .sorted { $0.path < $1.path }
    }

    static let corpus = files(in: "corpus")
    static let regressions = files(in: "regressions")

    /// How decoding one file ended.
    enum Outcome: Equatable {
        case decoded(width: Int, height: Int, channels: Int, bitDepth: Int, orientation: Int)
        case refused(String)
    }

    /// Decodes `url`; a `StackerError` becomes `.refused`, any other error
    /// is recorded as a test failure (crashes end the test run by themselves).
    static func outcome(_ url: URL) throws -> Outcome {
        let bytes = [UInt8](try Data(contentsOf: url))
        do {
            let d = try ImageFile.decode(bytes: bytes, path: url.lastPathComponent, maxPixels: maxPixels)
            return .decoded(width: d.image.width, height: d.image.height, channels: d.image.channels,
                            bitDepth: d.bitDepth, orientation: d.orientation)
        } catch let error as StackerError {
            return .refused(error.reason)
        } catch {
            Issue.record("\(url.lastPathComponent): decode threw a non-StackerError \(error)")
            return .refused("\(error)")
        }
    }

    @Test("the seed corpus is there and small")
    func corpusPresent() throws {
        let jpegs = Self.corpus.filter { $0.path.contains("/corpus/jpeg/") }
        let pngs = Self.corpus.filter { $0.path.contains("/corpus/png/") }
        #expect(jpegs.count >= 10)
        #expect(pngs.count >= 10)
        #expect(Self.corpus.filter { $0.path.contains("/corpus/tiff/") }.count >= 10)
        #expect(Self.corpus.filter { $0.path.contains("/corpus/fits/") }.count >= 10)
        #expect(Self.corpus.filter { $0.path.contains("/corpus/heif/") }.count >= 10)
        #expect(Self.corpus.filter { $0.path.contains("/corpus/ser/") }.count >= 10)
        // The EXIF and registration modes of the harness (tagged inputs;
        // they decode to a refusal here, the harness replays them properly).
        #expect(Self.corpus.filter { $0.path.contains("/corpus/exif/") }.count >= 10)
        #expect(Self.corpus.filter { $0.path.contains("/corpus/registration/") }.count >= 10)
        let total = try Self.corpus.reduce(0) { $0 + (try Data(contentsOf: $1)).count }
        #expect(total < 5_000_000, "keep the committed corpus under ~5 MB (docs/fuzzing.md)")
    }

    @Test("every corpus and regression file decodes or throws a StackerError",
          arguments: corpus + regressions)
    func decodesOrRefuses(_ url: URL) throws {
        let result = try Self.outcome(url)
        guard case let .decoded(width, height, channels, bitDepth, orientation) = result else {
            if case let .refused(reason) = result {
                #expect(!reason.isEmpty, "\(url.lastPathComponent): refused without a reason")
            }
            return
        }
        #expect(width > 0 && height > 0 && width * height <= Self.maxPixels)
        #expect(channels == 1 || channels == 3)
        #expect([8, 16, 32].contains(bitDepth))
        #expect((1...8).contains(orientation))
        // The header-only path must agree with what decoding produced.
        let header = try ImageFile.readHeader(url.path)
        #expect(header.width == width && header.height == height && header.channels == channels,
                "\(url.lastPathComponent): readHeader says \(header), decode says \(width)×\(height)×\(channels)")
    }

    /// What the named seeds must give; the rest only need "decode or refuse".
    static let expected: [String: Outcome] = [
        "jpeg/rgb444-16x16.jpg": .decoded(width: 16, height: 16, channels: 3, bitDepth: 8, orientation: 1),
        "jpeg/gray-8x8.jpg": .decoded(width: 8, height: 8, channels: 1, bitDepth: 8, orientation: 1),
        "jpeg/progressive-16x16.jpg": .decoded(width: 16, height: 16, channels: 3, bitDepth: 8, orientation: 1),
        "jpeg/restart-16x16.jpg": .decoded(width: 16, height: 16, channels: 3, bitDepth: 8, orientation: 1),
        "jpeg/exif-ii-orient6.jpg": .decoded(width: 9, height: 17, channels: 3, bitDepth: 8, orientation: 6),
        "jpeg/exif-ii-orient5.jpg": .decoded(width: 9, height: 17, channels: 3, bitDepth: 8, orientation: 5),
        "jpeg/exif-ii-orient2.jpg": .decoded(width: 17, height: 9, channels: 3, bitDepth: 8, orientation: 2),
        "jpeg/exif-mm-orient3.jpg": .decoded(width: 16, height: 16, channels: 3, bitDepth: 8, orientation: 3),
        "jpeg/exif-mm-orient8-long.jpg": .decoded(width: 9, height: 17, channels: 3, bitDepth: 8, orientation: 8),
        // Malformed EXIF never makes the pixels unreadable.
        "jpeg/exif-bad-orient9.jpg": .decoded(width: 16, height: 16, channels: 3, bitDepth: 8, orientation: 1),
        "jpeg/exif-ifd-past-end.jpg": .decoded(width: 16, height: 16, channels: 3, bitDepth: 8, orientation: 1),
        "jpeg/exif-count-huge.jpg": .decoded(width: 16, height: 16, channels: 3, bitDepth: 8, orientation: 1),
        "jpeg/exif-short-block.jpg": .decoded(width: 16, height: 16, channels: 3, bitDepth: 8, orientation: 1),
        "jpeg/cmyk-8x8.jpg": .refused("CMYK JPEG files are not supported"),
        "jpeg/truncated-scan.jpg": .refused("truncated JPEG data"),
        "jpeg/sof-bomb-65535.jpg": .refused("corrupt JPEG data (Maximum supported image dimension is 65500 pixels)"),
        "jpeg/sof-bomb-60000.jpg": .refused("the image is 60000×60000 pixels, more than the limit of 4.194304 megapixels"),
        "png/gray1-9x3.png": .decoded(width: 9, height: 3, channels: 1, bitDepth: 8, orientation: 1),
        "png/gray16-4x4.png": .decoded(width: 4, height: 4, channels: 1, bitDepth: 16, orientation: 1),
        "png/rgb16-3x3.png": .decoded(width: 3, height: 3, channels: 3, bitDepth: 16, orientation: 1),
        "png/palette4-8x4.png": .decoded(width: 8, height: 4, channels: 3, bitDepth: 8, orientation: 1),
        "png/graya8-4x4.png": .decoded(width: 4, height: 4, channels: 1, bitDepth: 8, orientation: 1),
        "png/rgba16-2x2.png": .decoded(width: 2, height: 2, channels: 3, bitDepth: 16, orientation: 1),
        "png/interlaced-rgb-16x16.png": .decoded(width: 16, height: 16, channels: 3, bitDepth: 8, orientation: 1),
        "png/interlaced-gray16-9x7.png": .decoded(width: 9, height: 7, channels: 1, bitDepth: 16, orientation: 1),
        "png/truncated-idat.png": .refused("truncated PNG data"),
        "png/idat-crc.png": .refused("PNG CRC error in chunk IDAT"),
        "png/ihdr-bomb.png": .refused("the image is 100000×100000 pixels, more than the limit of 4.194304 megapixels"),
        "tiff/gray8-strips-9x7.tif": .decoded(width: 9, height: 7, channels: 1, bitDepth: 8, orientation: 1),
        "tiff/rgb16-deflate-pred-8x6.tif": .decoded(width: 8, height: 6, channels: 3, bitDepth: 16, orientation: 1),
        "tiff/rgb8-packbits-7x5.tif": .decoded(width: 7, height: 5, channels: 3, bitDepth: 8, orientation: 1),
        "tiff/rgba16-separate-6x4.tif": .decoded(width: 6, height: 4, channels: 3, bitDepth: 16, orientation: 1),
        "tiff/graya8-tiled-20x18.tif": .decoded(width: 20, height: 18, channels: 1, bitDepth: 8, orientation: 1),
        "tiff/float32-mm-tiled-5x3.tif": .decoded(width: 5, height: 3, channels: 1, bitDepth: 32, orientation: 1),
        "tiff/rgb8-deflate-tiled-separate-17x17.tif": .decoded(width: 17, height: 17, channels: 3, bitDepth: 8, orientation: 1),
        "tiff/palette8.tif": .refused("palette (indexed colour) TIFF files are not supported"),
        "tiff/cmyk8.tif": .refused("CMYK TIFF files are not supported"),
        "tiff/signed16.tif": .refused("signed integer TIFF samples are not supported"),
        "tiff/bomb-100000.tif": .refused("the image is 100000×100000 pixels, more than the limit of 4.194304 megapixels"),
        "fits/gray16-bzero-6x4.fits": .decoded(width: 6, height: 4, channels: 1, bitDepth: 16, orientation: 1),
        "fits/rgb16-bzero-6x4x3.fits": .decoded(width: 6, height: 4, channels: 3, bitDepth: 16, orientation: 1),
        "fits/float32-rgb-3x2x3.fits": .decoded(width: 3, height: 2, channels: 3, bitDepth: 32, orientation: 1),
        "fits/float64-3x2.fits": .decoded(width: 3, height: 2, channels: 1, bitDepth: 32, orientation: 1),
        "fits/naxis3-1-3x2x1.fits": .decoded(width: 3, height: 2, channels: 1, bitDepth: 8, orientation: 1),
        "fits/truncated-data.fits": .refused("truncated FITS data"),
        "fits/naxis0.fits": .refused("the FITS file has no image: its primary HDU is empty (NAXIS = 0) and no extension follows"),
        "fits/naxis3-5.fits": .decoded(width: 4, height: 4, channels: 1, bitDepth: 16, orientation: 1),  // frame 0 of a cube
        "fits/bomb-100000.fits": .refused("the image is 100000×100000 pixels, more than the limit of 4.194304 megapixels"),
        // HEIF: the primary image (a burst's first), RGB; 10-bit as 16.
        "heif/heic-8bit-16x16.heic": .decoded(width: 16, height: 16, channels: 3, bitDepth: 8, orientation: 1),
        "heif/heic-8bit-odd-17x11.heic": .decoded(width: 17, height: 11, channels: 3, bitDepth: 8, orientation: 1),
        "heif/heic-10bit-16x16.heic": .decoded(width: 16, height: 16, channels: 3, bitDepth: 16, orientation: 1),
        "heif/heic-burst-3x16x16.heic": .decoded(width: 16, height: 16, channels: 3, bitDepth: 8, orientation: 1),
        "heif/avif-8bit-16x16.avif": .decoded(width: 16, height: 16, channels: 3, bitDepth: 8, orientation: 1),
        "heif/heic-grid-ispe-5000x5000.heic": .refused("the image is 5000×5000 pixels, more than the limit of 4.194304 megapixels"),
        "heif/heic-tile-ispe-60000x60000.heic": .refused("HEIF image too large or damaged (Memory allocation error: Security limit exceeded: Image size 60000x60000 exceeds the maximum image size 32768x32768)"),
        // SER: frame 0; 12-bit words as 16.
        "ser/mono8-8x6x4.ser": .decoded(width: 8, height: 6, channels: 1, bitDepth: 8, orientation: 1),
        "ser/mono12-be-8x6x2.ser": .decoded(width: 8, height: 6, channels: 1, bitDepth: 16, orientation: 1),
        "ser/rggb8-8x6x3-trailer.ser": .decoded(width: 8, height: 6, channels: 1, bitDepth: 8, orientation: 1),
        "ser/bgr16-6x4x2.ser": .decoded(width: 6, height: 4, channels: 3, bitDepth: 16, orientation: 1),
        "ser/truncated-header.ser": .refused("truncated SER header"),
        "ser/count-0.ser": .refused("the SER file holds no frames (FrameCount 0)"),
        "ser/colour-cmy-16.ser": .refused("SER colour ID 16 is not supported (mono, Bayer RGGB/GRBG/GBRG/BGGR, RGB or BGR)"),
        "ser/depth-17.ser": .refused("SER pixel depth 17 is not supported (need 1…16 bits)"),
        "ser/truncated-data.ser": .refused("truncated SER data: the header says 4 frames of 8×6, the file holds 3 whole frame(s)"),
        // Int32.max² × 3 channels × 2 bytes passes Int.max: refused, not a trap.
        "ser/rgb16-size-overflow.ser": .refused("truncated SER data: the header says 1 frames of 2147483647×2147483647, the file holds 0 whole frame(s)"),
        "ser/bomb-40000x40000.ser": .refused("truncated SER data: the header says 1 frames of 40000×40000, the file holds 0 whole frame(s)"),
    ]

    @Test("named seeds decode to their stated size, or are refused for their stated reason",
          arguments: expected.keys.sorted())
    func namedSeed(_ name: String) throws {
        let url = Self.root.appendingPathComponent("Fuzz/corpus").appendingPathComponent(name)
        #expect(FileManager.default.fileExists(atPath: url.path), "missing seed \(name)")
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        let got = try Self.outcome(url)
        #expect(got == Self.expected[name], "\(name): got \(got)")
    }
}
