import Foundation
import Testing
import Registration
import SceneGen
@testable import Stacker

/// HEIF reading (`HEIFCodec` through libheif) on files written by libheif's
/// own encoder, `heif-enc` (Debian package libheif-examples, which `make
/// deps` installs): generated bursts with known shifts, one file per frame
/// and all frames in one file, and 8- and 10-bit images of known content.
@Suite("HEIF reading")
struct HEIFCodecTests {
    /// `heif-enc` on the PNG `inputs`, writing one HEIC file (several
    /// inputs make one file of several top-level images, in order).
    static func heifEnc(_ inputs: [String], to output: String, arguments: [String] = ["-q", "90"]) throws {
        try runEncoder("heif-enc", package: "libheif-examples", arguments: arguments + ["-o", output] + inputs, output: output)
    }

    /// Runs the encoder `name` (from /usr/bin or /usr/local/bin) with
    /// `arguments`, throwing unless it exits 0; `output` names the file in
    /// the error.
    static func runEncoder(_ name: String, package: String, arguments: [String], output: String) throws {
        let tool = ["/usr/bin/", "/usr/local/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let tool else {
            throw StackerError.invalidInput(path: name, reason: "not installed (apt-get install \(package))")
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw StackerError.writeFailed(path: output, reason: "\(name) exited with \(p.terminationStatus)")
        }
    }

    static func folder(_ name: String) throws -> String {
        let folder = NSTemporaryDirectory() + "stack-heif-\(name)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    static func median(_ sources: [FrameSource]) throws -> StackResult {
        var o = StackOptions()
        o.mode = .median
        o.threads = 2
        return try stack(sources, options: o)
    }

    /// heif-enc settings against our JPEG encoder's at the same quality:
    /// 4:4:4 at quality 95 (the JPEG encoder's choice at ≥ 90), 4:2:0 at 85
    /// (what phones write).
    static let burstSettings: [(jpegQuality: Int, heifEnc: [String])] = [
        (95, ["-q", "95", "-p", "chroma=444"]),
        (85, ["-q", "85", "-p", "chroma=420"]),
    ]

    @Test("a HEIC burst, one file per frame or all frames in one file, registers within 0.05 px of the truth and its median comes within 1 dB of the JPEG burst's",
          arguments: [0, 1])
    func burstRegistersAndStacks(setting: Int) throws {
        let (jpegQuality, heifEnc) = Self.burstSettings[setting]
        var config = SceneConfig.street
        config.width = 320; config.height = 240; config.frameCount = 8; config.seed = 24
        let scene = SceneGenerator.render(config)
        let folder = try Self.folder("burst")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try scene.write(to: folder, format: .png)
        try scene.write(to: folder, format: .jpeg, quality: jpegQuality)
        let pngs = (0..<config.frameCount).map { folder + "/" + Scene.frameFileName($0, format: .png) }
        let jpegs = (0..<config.frameCount).map { folder + "/" + Scene.frameFileName($0, format: .jpeg) }
        var heics: [String] = []
        for (i, png) in pngs.enumerated() {
            heics.append(folder + "/frame_\(i).heic")
            try Self.heifEnc([png], to: heics[i], arguments: heifEnc)
        }
        let burst = folder + "/burst.heic"
        try Self.heifEnc(pngs, to: burst, arguments: heifEnc)

        // The burst file expands to its images, named file#index.
        let inFile = FrameSource.frames(in: [burst])
        #expect(try ImageFile.frameCount(burst) == config.frameCount)
        #expect(inFile.count == config.frameCount)
        #expect(try ImageFile.frameCount(heics[0]) == 1)

        let truth = scene.groundTruth
        let border = Int(config.maxShift.rounded(.up)) + 3
        let jpegPSNR = ImageMetrics.psnr(try Self.median(jpegs.map { .path($0) }).image, truth, border: border)
        let separate = try Self.median(FrameSource.frames(in: heics))
        let together = try Self.median(inFile)
        #expect(together.frames.map(\.path) == (0..<config.frameCount).map { "\(burst)#\($0)" })
        for (name, result) in [("one file per frame", separate), ("one file", together)] {
            var worst = 0.0
            for (report, shift) in zip(result.frames, scene.shifts) {
                let (dx, dy) = report.transform.translation
                worst = max(worst, abs(dx - shift.dx), abs(dy - shift.dy))
            }
            let psnr = ImageMetrics.psnr(result.image, truth, border: border)
            print("HEIC burst \(heifEnc.joined(separator: " ")), \(name): worst shift error \(worst) px; median \(psnr) dB, JPEG q\(jpegQuality) burst \(jpegPSNR) dB")
            #expect(worst < 0.05, "\(name): worst shift error \(worst) px")
            #expect(psnr > jpegPSNR - 1, "\(name): \(psnr) dB against the JPEG burst's \(jpegPSNR) dB")
            #expect(result.frames.allSatisfy { $0.used })
        }
        // The same coded images give the same stack, whichever way they are filed.
        #expect(separate.image.planes.map(\.pixels) == together.image.planes.map(\.pixels))
    }

    @Test("8-bit HEIC reads as 8-bit, 10-bit as 16-bit, both within 2 levels of the lossless source, right way up")
    func bitDepths() throws {
        let folder = try Self.folder("depth")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Asymmetric content, so a rotated or mirrored read cannot pass.
        let image = IOFixtures.smooth(width: 96, height: 64, channels: 3, seed: 7)
        for (depth, bits) in [(8, 8), (16, 10)] {
            let png = folder + "/source\(depth).png"
            try ImageFile.write(image, to: png, options: EncodeOptions(bitDepth: depth))
            let source = try ImageFile.read(png).image
            let heic = folder + "/lossless\(depth).heic"
            try Self.heifEnc([png], to: heic, arguments: ["-L", "-p", "chroma=444", "-b", String(bits)])
            let decoded = try ImageFile.read(heic)
            #expect(decoded.bitDepth == depth)
            #expect(decoded.image.width == 96 && decoded.image.height == 64 && decoded.image.channels == 3)
            let error = IOFixtures.error(decoded.image, source)
            print("HEIC \(bits)-bit lossless (4:4:4, RGB through YCbCr): mean error \(error.mean * 255), max \(error.max * 255) levels of 255")
            #expect(error.max * 255 <= 2, "\(bits)-bit: max error \(error.max * 255) levels")
            // The header agrees with the decode.
            let header = try ImageFile.readHeader(heic)
            #expect(header.width == 96 && header.height == 64 && header.channels == 3)
        }
    }

    @Test("bad HEIF input: missing frame, pixel limit, truncation and garbage give one-line errors naming the file")
    func badInput() throws {
        let folder = try Self.folder("bad")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let png = folder + "/a.png"
        try ImageFile.write(IOFixtures.smooth(width: 64, height: 48, channels: 3, seed: 3), to: png)
        let heic = folder + "/a.heic"
        try Self.heifEnc([png, png], to: heic)
        func reason(_ body: () throws -> Void) -> String? {
            do { try body(); return nil } catch let e as StackerError { #expect(e.path.hasSuffix(".heic")); return e.reason } catch { return "\(error)" }
        }
        let missing = reason { _ = try ImageFile.readFrame(2, of: heic) }
        #expect(missing == "the file holds 2 image(s), not an image 2")
        let tooLarge = reason { _ = try ImageFile.readFrame(1, of: heic, maxPixels: 64 * 48 - 1) }
        #expect(tooLarge == "the image is 64×48 pixels, more than the limit of 0.003071 megapixels")
        #expect(try ImageFile.readFrame(1, of: heic, maxPixels: 64 * 48).image.width == 64)
        let bytes = try FileBytes.read(heic.filePath)
        #expect(HEIFCodec.hasMagic(bytes))
        // Cut anywhere: a sentence, never a crash or a half image.
        for cut in stride(from: 12, to: bytes.count, by: max(1, bytes.count / 23)) {
            let path = folder + "/cut\(cut).heic"
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes[..<cut]))
            if let r = reason({ _ = try ImageFile.read(path) }) {
                #expect(!r.isEmpty && !r.contains("\n"), "cut at \(cut): \(r)")
            }
        }
        // An MP4 `ftyp` is not HEIF.
        let mp4: [UInt8] = [0, 0, 0, 24] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isomiso2".utf8)
        #expect(!HEIFCodec.hasMagic(mp4))
        #expect(HEIFCodec.hasMagic([0, 0, 0, 24] + Array("ftypmif1".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)))
    }

    @Test("a HEIF Exif item gives its TIFF block with the orientation reset to 1")
    func exifItem() {
        // Big-endian TIFF block: IFD0 with one entry, Orientation = 6.
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        let item: [UInt8] = [0, 0, 0, 6] + EXIF.header + tiff
        let carried = HEIFCodec.exif(item)
        #expect(carried?.count == tiff.count)
        #expect(carried.flatMap { TIFFReader($0)?.orientation() }??.value == 1)
        // An offset pointing at `Exif\0\0` instead of past it is forgiven.
        #expect(HEIFCodec.exif([0, 0, 0, 0] + EXIF.header + tiff)?.count == tiff.count)
        #expect(HEIFCodec.exif([0, 0, 0, 99] + tiff) == nil)
        #expect(HEIFCodec.exif([0, 0]) == nil)
    }

    /// pillow-heif's test files (Tests/Fixtures/real/README-heif.md).
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/real").path

    @Test("pillow-heif's rotated (irot 270°, EXIF too) and 10-bit files decode within 2 levels of heif-convert's output, the same way up")
    func realFilesMatchHeifConvert() throws {
        for name in ["pillow-heif-rotated-270.heic", "pillow-heif-rgb-10bit.heif"] {
            let path = Self.fixtures + "/" + name
            let decoded = try ImageFile.read(path)
            let stem = name.split(separator: ".").dropLast().joined(separator: ".")
            // Decoded as stored: heif-convert 1.15 copies the HEIF's EXIF,
            // orientation tag included, into its PNG although it has already
            // turned the pixels, so `ImageFile.read` would turn them again.
            let png = try FileBytes.read((Self.fixtures + "/" + stem + ".heif-convert.png").filePath)
            let reference = try PNGCodec.decode(png, path: stem, maxPixels: 1 << 20).image
            #expect(decoded.image.width == reference.width && decoded.image.height == reference.height, "\(name)")
            let error = IOFixtures.error(decoded.image, reference)
            print("\(name): \(decoded.image.width)×\(decoded.image.height), \(decoded.bitDepth)-bit; against heif-convert mean \(error.mean * 255), max \(error.max * 255) levels")
            #expect(error.max * 255 <= 2, "\(name): max \(error.max * 255) levels")
            // The carried EXIF says "as stored": the pixels are already upright.
            if let exif = decoded.exif, let entry = TIFFReader(exif)?.orientation(), let found = entry {
                #expect(found.value == 1)
            }
        }
        #expect(try ImageFile.read(Self.fixtures + "/pillow-heif-rgb-10bit.heif").bitDepth == 16)
    }

    @Test("a Nokia burst in one file stacks as its 4 frames; a file of images of different sizes gives its primary image")
    func realBurstAndCollection() throws {
        let burst = Self.fixtures + "/pillow-heif-nokia-burst.heic"
        let sources = FrameSource.frames(in: [burst])
        #expect(sources.count == 4)
        let result = try Self.median(sources)
        #expect(result.image.width == 1280 && result.image.height == 720)
        #expect(result.frames.map(\.path) == (0..<4).map { "\(burst)#\($0)" })
        #expect(result.frames.allSatisfy { $0.used })
        // zPug_3: top-level images of 64×64, 64×64 (primary, the second) and 96×64.
        let collection = Self.fixtures + "/pillow-heif-collection.heic"
        #expect(try ImageFile.frameCount(collection) == 1)
        let primary = try ImageFile.read(collection).image
        #expect(primary.width == 64 && primary.height == 64)
        #expect(try ImageFile.readFrame(2, of: collection).image.width == 96)
    }
}
