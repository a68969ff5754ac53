import Foundation
import Testing
import Stacker

/// The depth a stack is written at when `--depth` is not given: a stack of
/// 8-bit frames holds finer steps than any one frame, so PNG, TIFF and FITS
/// outputs get 16 bits; JPEG stays 8.
@Suite("stack CLI: default output depth")
struct OutputDepthCLITests {
    @Test("every format's default for 8-, 16- and float references")
    func defaults() {
        #expect(ImageFormat.jpeg.stackDepth(reference: 8) == 8)
        #expect(ImageFormat.jpeg.stackDepth(reference: 32) == 8)
        for format in [ImageFormat.png, .tiff, .fits] {
            #expect(format.stackDepth(reference: 8) == 16, "\(format)")
            #expect(format.stackDepth(reference: 16) == 16, "\(format)")
        }
        #expect(ImageFormat.png.stackDepth(reference: 32) == 16)
        #expect(ImageFormat.tiff.stackDepth(reference: 32) == 32)
        #expect(ImageFormat.fits.stackDepth(reference: 32) == 32)
    }

    @Test("8-bit JPEG frames stack into 16-bit PNG, TIFF and FITS, 8-bit JPEG; --depth 8 still gives 8")
    func eightBitFrames() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = try CLIHarness.makeBurst(in: dir, frames: 5, width: 96, height: 64, seed: 5)
        for (name, depth) in [("out.png", 16), ("out.tif", 16), ("out.fits", 16), ("out.jpg", 8)] {
            let r = try CLIHarness.run(["--mode", "median", "-o", "\(dir)/\(name)", "--quiet"] + frames)
            #expect(r.status == 0, "\(name): \(r.stderr)")
            #expect(try ImageFile.read("\(dir)/\(name)").bitDepth == depth, "\(name)")
        }
        let eight = try CLIHarness.run(["--mode", "median", "--depth", "8", "-o", "\(dir)/eight.png", "--quiet"] + frames)
        #expect(eight.status == 0, "\(eight.stderr)")
        #expect(try ImageFile.read("\(dir)/eight.png").bitDepth == 8)
        // The 16-bit output is the 8-bit one with finer steps: rounding both
        // to 8 bits agrees to within one level.
        let deep = try ImageFile.read("\(dir)/out.png").image, shallow = try ImageFile.read("\(dir)/eight.png").image
        var worst: Float = 0
        for (a, b) in zip(deep.planes.flatMap(\.pixels), shallow.planes.flatMap(\.pixels)) {
            worst = max(worst, abs((a * 255).rounded() - b * 255))
        }
        #expect(worst <= 1)
        // An average of 5 frames has finer steps than 1/255, and the
        // default keeps them: most samples lie between 8-bit levels.
        let mean = try CLIHarness.run(["--mode", "average", "-o", "\(dir)/mean.png", "--quiet"] + frames)
        #expect(mean.status == 0, "\(mean.stderr)")
        let averaged = try ImageFile.read("\(dir)/mean.png").image.planes[0].pixels
        let offGrid = averaged.filter { abs($0 * 255 - ($0 * 255).rounded()) > 0.01 }.count
        #expect(offGrid > averaged.count / 2, "\(offGrid) of \(averaged.count) between 8-bit levels")
    }

    @Test("--interpolation picks the kernel and the report names it; an unknown one is a usage error")
    func interpolationOption() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = try CLIHarness.makeBurst(in: dir, frames: 4, width: 96, height: 64, seed: 6)
        var outputs: [String: [Float]] = [:]
        for kernel in ["lanczos3", "cubic", "bilinear", "nearest"] {
            let r = try CLIHarness.run(["--interpolation", kernel, "--depth", "16", "-o", "\(dir)/\(kernel).png",
                                        "--report", "\(dir)/\(kernel).json", "--quiet"] + frames)
            #expect(r.status == 0, "\(kernel): \(r.stderr)")
            let report = try String(contentsOfFile: "\(dir)/\(kernel).json", encoding: .utf8)
            #expect(report.contains("\"interpolation\": \"\(kernel)\""), "\(kernel)")
            outputs[kernel] = try ImageFile.read("\(dir)/\(kernel).png").image.planes[0].pixels
        }
        // Different kernels give different stacks (the burst has subpixel shifts).
        #expect(Set(outputs.values.map { $0.hashValue }).count == 4)
        let bad = try CLIHarness.run(["--interpolation", "sinc", "a.jpg", "b.jpg"])
        #expect(bad.status == 2)
        #expect(bad.stderr.hasPrefix("stack: error: unknown --interpolation 'sinc'"), "\(bad.stderr)")
    }
}
