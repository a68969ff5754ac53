import Foundation
import SceneGen
import Stacker
import Testing

/// `--scale`, `--pixfrac`, `--drizzle-kernel`, `--sr-merge` and `--weight-map` through the built binary.
@Suite("stack: drizzle options")
struct DrizzleCLITests {
    @Test("--scale 2 writes a stack twice the size and a weight map with no holes inside")
    func scaleTwo() throws {
        let folder = try CLIHarness.temporaryFolder()
        let scene = SuperResolutionScene(width: 40, height: 32, frameCount: 10, seed: 3)
        try scene.write(to: folder)
        let frames = (0..<10).map { String(format: "frames/frame_%03d.png", $0) }
        let run = try CLIHarness.run(["--scale", "2", "--pixfrac=0.7", "--drizzle-kernel", "gaussian",
                                      "--weight-map", "weights.fits", "-o", "sr.tif", "--depth", "16", "--report", "r.json"] + frames, in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let header = try ImageFile.readHeader(folder + "/sr.tif")
        #expect(header.width == 80 && header.height == 64 && header.channels == 3)
        // The report names the drizzle; its transforms stay on the 1× reference grid, and read back.
        let report = try String(contentsOfFile: folder + "/r.json", encoding: .utf8)
        #expect(report.contains("\"drizzle\": { \"scale\": 2, \"pixfrac\": 0.7, \"kernel\": \"gaussian\", \"merge\": \"drizzle\" }"), "\(report.prefix(400))")
        #expect(report.contains("\"width\": 80"))
        let again = try CLIHarness.run(["--transforms", "r.json", "--scale", "2", "-o", "again.tif", "--depth", "16"] + frames, in: folder)
        #expect(again.status == 0, "\(again.stderr)")
        let weights = try ImageFile.read(folder + "/weights.fits").image
        #expect(weights.width == 80 && weights.height == 64 && weights.channels == 1)
        // The shifts reach 2 frame pixels: 4 output pixels and one more for the drops' edges.
        var least = Float.infinity
        for y in 5..<59 { for x in 5..<75 { least = min(least, weights.planes[0][x, y]) } }
        #expect(least > 0, "least weight inside \(least)")
    }

    @Test("--scale 2 --robust --sr-merge kernel: the robust kernel merge runs and the report names it")
    func robustKernelMerge() throws {
        let folder = try CLIHarness.temporaryFolder()
        try SuperResolutionScene(width: 40, height: 32, frameCount: 6, seed: 5, movers: 2).write(to: folder)
        let frames = (0..<6).map { String(format: "frames/frame_%03d.png", $0) }
        let run = try CLIHarness.run(["--scale", "2", "--robust", "--sr-merge", "kernel", "-o", "sr.png", "--report", "r.json"] + frames, in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let header = try ImageFile.readHeader(folder + "/sr.png")
        #expect(header.width == 80 && header.height == 64)
        let report = try String(contentsOfFile: folder + "/r.json", encoding: .utf8)
        #expect(report.contains("\"merge\": \"kernel\" }"), "\(report.prefix(400))")
    }

    @Test("an output past --max-pixels is refused with one line and exit 1, nothing written")
    func outputTooLarge() throws {
        let folder = try CLIHarness.temporaryFolder()
        try SuperResolutionScene(width: 40, height: 32, frameCount: 3, seed: 4).write(to: folder)
        let frames = (0..<3).map { String(format: "frames/frame_%03d.png", $0) }
        let run = try CLIHarness.run(["--scale", "2", "--max-pixels", "2000", "-o", "sr.png"] + frames, in: folder)
        #expect(run.status == 1, "\(run.status) \(run.stderr)")
        #expect(run.stderr.contains("--max-pixels"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/sr.png"))
    }

    @Test("drizzle options without --scale, with the median, or out of range are usage errors (exit 2)")
    func usageErrors() throws {
        for arguments in [["--pixfrac", "0.5"], ["--scale", "2", "--mode", "median"], ["--scale", "5"],
                          ["--scale", "2", "--pixfrac", "0"], ["--scale", "2", "--drizzle-kernel", "lanczos"],
                          ["--scale", "2", "--weight-map", "w.jpg"], ["--sr-merge", "kernel"],
                          ["--scale", "2", "--sr-merge", "lanczos"]] {
            let run = try CLIHarness.run(arguments + ["a.png", "b.png"])
            #expect(run.status == 2, "\(arguments): \(run.status) \(run.stderr)")
            #expect(run.stderr.hasPrefix("stack: error: "), "\(arguments): \(run.stderr)")
        }
    }
}
