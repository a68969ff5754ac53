import Foundation
import Testing
import Stacker

@Suite("stack CLI: HEIC output")
struct HEICOutputCLITests {
    @Test("-o out.heic writes an 8-bit HEIC, --depth 16 a 10-bit one read back as 16-bit, --depth 32f is a usage error; a HEIC burst's implicit output is stacked.heic")
    func heicOutput() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = try CLIHarness.makeBurst(in: dir, frames: 3, width: 160, height: 120, seed: 24)
        let r = try CLIHarness.run(["-o", "\(dir)/out.heic", "--quality", "90", "--quiet"] + frames)
        #expect(r.status == 0, "\(r.stderr)")
        let eight = try ImageFile.read("\(dir)/out.heic")
        #expect(eight.bitDepth == 8 && eight.image.width == 160 && eight.image.height == 120)
        let jpeg = try CLIHarness.run(["-o", "\(dir)/out.jpg", "--quality", "100", "--quiet"] + frames)
        #expect(jpeg.status == 0, "\(jpeg.stderr)")
        let psnr = ImageMetrics.psnr(eight.image, try ImageFile.read("\(dir)/out.jpg").image)
        print("HEIC q90 stack against the same stack as JPEG q100: \(psnr) dB")
        #expect(psnr > 38, "\(psnr) dB")

        let deep = try CLIHarness.run(["-o", "\(dir)/deep.hif", "--depth", "16", "--quiet"] + frames)
        #expect(deep.status == 0, "\(deep.stderr)")
        #expect(try ImageFile.read("\(dir)/deep.hif").bitDepth == 16)

        let float = try CLIHarness.run(["-o", "\(dir)/x.heic", "--depth", "32f"] + frames)
        #expect(float.status == 2 && float.stderr.hasPrefix("stack: error: --depth"), "\(float.stderr)")

        // HEIC frames: without -o the output takes their extension.
        let heics = try frames.enumerated().map { i, jpeg -> String in
            let path = "\(dir)/h\(i).heic"
            try ImageFile.write(ImageFile.read(jpeg).image, to: path, options: EncodeOptions(quality: 95))
            return path
        }
        let work = dir + "/implicit"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let implicit = try CLIHarness.run(["--quiet"] + heics, in: work)
        #expect(implicit.status == 0, "\(implicit.stderr)")
        #expect(try ImageFile.read(work + "/stacked.heic").image.width == 160)
    }
}
