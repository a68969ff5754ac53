import Foundation
import Registration
@testable import Stacker
import Testing

/// `--before-after FILE`: the reference frame on the left, the stack on the
/// right, 16 px apart; never one of the inputs or the output itself.
@Suite("--before-after")
struct BeforeAfterCLITests {
    @Test("the picture holds the reference frame and the stack side by side")
    func picture() throws {
        let folder = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let frames = try CLIHarness.makeBurst(in: folder, frames: 5, width: 96, height: 64)
        let run = try CLIHarness.run(["--mode", "median", "--reference", "1", "-o", "\(folder)/out.png",
                                      "--before-after", "\(folder)/ba.png"] + frames)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("before/after: \(folder)/ba.png"), "\(run.stderr)")
        let picture = try ImageFile.read("\(folder)/ba.png").image
        let stackImage = try ImageFile.read("\(folder)/out.png").image
        let reference = try ImageFile.read(frames[1]).image
        #expect(picture.width == 96 * 2 + 16 && picture.height == 64)
        let left = crop(picture, x0: 0, width: 96), right = crop(picture, x0: 96 + 16, width: 96)
        // Both 8-bit encodings of the same pixels: equal to within a level.
        #expect(ImageMetrics.maxAbsoluteError(left, reference) <= 1.0 / 255 + 1e-6)
        #expect(ImageMetrics.maxAbsoluteError(right, stackImage) <= 1.0 / 255 + 1e-6)
    }

    @Test("an input, the output or the report as the picture's name is refused")
    func refusedNames() throws {
        let folder = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let frames = try CLIHarness.makeBurst(in: folder, frames: 3, width: 64, height: 48)
        for (picture, extra) in [(frames[0], [String]()), ("\(folder)/out.png", []),
                                 ("\(folder)/r.png", ["--report", "\(folder)/r.png"])] {
            let run = try CLIHarness.run(["-o", "\(folder)/out.png", "--before-after", picture] + extra + frames)
            #expect(run.status == 1, "\(picture): \(run.stderr)")
            #expect(run.stderr.hasPrefix("stack: error: "), "\(run.stderr)")
        }
        let unknown = try CLIHarness.run(["--before-after", "\(folder)/x.gif"] + frames)
        #expect(unknown.status == 2)
    }

    /// Columns `x0 ..< x0 + width` of `image`.
    func crop(_ image: Image, x0: Int, width: Int) -> Image {
        Image(width: width, height: image.height, planes: image.planes.map { plane in
            var out = Plane(width: width, height: image.height)
            for y in 0..<image.height {
                for x in 0..<width { out.pixels[y * width + x] = plane.pixels[y * image.width + x0 + x] }
            }
            return out
        })
    }
}
