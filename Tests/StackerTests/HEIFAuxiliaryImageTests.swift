import Foundation
import Testing
import Registration
@testable import Stacker

/// Depth maps and auxiliary images of HEIC photos (`ImageFile.auxiliaryImages`),
/// on a real iPhone portrait from pillow-heif's test images, against
/// libheif's own `heif-convert --with-aux` (Debian libheif-examples).
@Suite("HEIF auxiliary images")
struct HEIFAuxiliaryImageTests {
    static let portrait = HEIFCodecTests.fixtures + "/pillow-heif-portrait-depth.heic"

    /// heif-convert's PNGs of the portrait's depth map and auxiliary
    /// images, written into `folder`: file name suffix → path.
    static func heifConvert(into folder: String) throws -> [String: String] {
        let tool = ["/usr/bin/heif-convert", "/usr/local/bin/heif-convert"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let tool else {
            throw StackerError.invalidInput(path: "heif-convert", reason: "not installed (apt-get install libheif-examples)")
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = ["--with-aux", portrait, folder + "/out.png"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        var found: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasPrefix("out-") {
            found[String(name.dropFirst(4).dropLast(4))] = folder + "/" + name
        }
        return found
    }

    @Test("an iPhone portrait gives its depth map (with its disparity range) and its HDR gain map, within 1 level of heif-convert's")
    func portraitDepthAndGainMap() throws {
        let images = try ImageFile.auxiliaryImages(Self.portrait)
        #expect(images.count == 2)
        guard images.count == 2 else { return }
        let depth = images[0], gain = images[1]
        #expect(depth.kind == .depth)
        #expect(depth.plane.width == 768 && depth.plane.height == 576 && depth.bitDepth == 8)
        #expect(depth.depth?.mapping == .uniformDisparity)
        #expect(abs((depth.depth?.dMin ?? 0) - 1.498047) < 1e-5 && abs((depth.depth?.dMax ?? 0) - 4.382812) < 1e-5)
        #expect(depth.depth?.zNear == nil && depth.depth?.zFar == nil)
        #expect(gain.kind == .auxiliary(type: "urn:com:apple:photo:2020:aux:hdrgainmap"))
        #expect(gain.plane.width == 2016 && gain.plane.height == 1512)

        let folder = try HEIFCodecTests.folder("aux")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let references = try Self.heifConvert(into: folder)
        for (image, suffix) in [(depth, "depth"), (gain, "urn:com:apple:photo:2020:aux:hdrgainmap")] {
            guard let path = references[suffix] else {
                Issue.record("heif-convert wrote no \(suffix) image; it wrote \(references.keys.sorted())")
                continue
            }
            // heif-convert writes the one channel as gray RGB.
            let reference = try PNGCodec.decode(try FileBytes.read(path.filePath), path: path, maxPixels: 1 << 24).image
            #expect(reference.width == image.plane.width && reference.height == image.plane.height, "\(suffix)")
            guard reference.width == image.plane.width, reference.height == image.plane.height else { continue }
            let worst = zip(image.plane.pixels, reference.planes[0].pixels).map { abs($0 - $1) * 255 }.max() ?? .infinity
            #expect(worst <= 1, "\(suffix): \(worst) levels from heif-convert")
        }
        // The depth map is not flat: a portrait has near and far.
        let values = depth.plane.pixels
        #expect((values.max() ?? 0) - (values.min() ?? 0) > 0.5)
    }

    @Test("files without auxiliary images give none; a limit below the depth map's size is an error naming the file")
    func noneAndLimits() throws {
        #expect(try ImageFile.auxiliaryImages(HEIFCodecTests.fixtures + "/pillow-heif-rotated-270.heic").isEmpty)
        let folder = try HEIFCodecTests.folder("aux-none")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let jpeg = folder + "/plain.jpg"
        try ImageFile.write(Image(width: 8, height: 8, channels: 3), to: jpeg)
        #expect(try ImageFile.auxiliaryImages(jpeg).isEmpty)
        #expect {
            try ImageFile.auxiliaryImages(Self.portrait, maxPixels: 100_000)
        } throws: { error in
            "\(error)".contains("pillow-heif-portrait-depth.heic")
        }
    }
}
