import TestSupport
import Testing
import Foundation
import Registration
@testable import Stacker

/// Float and calibrated data keep a float frame store in the robust modes,
/// so values outside 0…1 survive as they do in the average.
@Suite("Float frame store")
struct FloatStoreTests {
    @Test("float FITS frames with values outside 0…1 keep them through sigma-clip and the median")
    func floatFITSOutsideUnitRange() throws {
        let w = 24, h = 9, n = 7
        var rng = TestRandom(seed: 31)
        // Per pixel a level from −0.5 to 2, noise, and one planted outlier frame.
        let levels = (0..<(w * h)).map { _ in Float(rng.uniform() * 2.5 - 0.5) }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stack-floatstore-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var frames: [[Float]] = []
        for f in 0..<n {
            let pixels = levels.map { $0 + Float(0.01 * rng.gaussian()) + (f == 3 ? 5 : 0) }
            frames.append(pixels)
            let image = Image(width: w, height: h, planes: [Plane(width: w, height: h, pixels: pixels)])
            try ImageFile.write(image, to: "\(dir)/f\(f).fits", options: EncodeOptions(bitDepth: 32))
        }
        var options = StackOptions()
        options.alignment = .none
        let sources = (0..<n).map { FrameSource.path("\(dir)/f\($0).fits") }
        for (mode, kernel) in [(StackMode.sigmaClip, "sigma-clip"), (.median, "median")] {
            options.mode = mode
            let result = try stack(sources, options: options)
            let out = result.image.planes[0].pixels
            var wrong = 0, outside = 0
            for p in 0..<(w * h) {
                let samples = frames.map { $0[p] }
                let expected = mode == .median ? Median.of(samples) : SigmaClip.clip(samples).value
                if out[p] != expected { wrong += 1 }
                if out[p] < 0 || out[p] > 1 { outside += 1 }
            }
            #expect(wrong == 0, "\(kernel): \(wrong) pixels differ from the per-pixel kernel on the float samples")
            // Levels span −0.5…2, so most results lie outside 0…1.
            #expect(outside > w * h / 2, "\(kernel): only \(outside) values outside 0…1")
        }
    }

    @Test("the plan keeps floats for float files and calibrated frames, 16 bits for 16-bit files, 8 for 8-bit written at 8")
    func planDepth() {
        #expect(StackPlan.storeDepth(bitDepth: 32, calibrated: false) == .float32)
        #expect(StackPlan.storeDepth(bitDepth: 8, calibrated: true) == .float32)
        #expect(StackPlan.storeDepth(bitDepth: 16, calibrated: false) == .sixteen)
        #expect(StackPlan.storeDepth(bitDepth: 8, calibrated: false) == .eight)
        // 8-bit frames stacked into a 16-bit file keep 16 bits in the store.
        #expect(StackPlan.storeDepth(bitDepth: 8, calibrated: false, outputBitDepth: 16) == .sixteen)
        #expect(StackPlan.storeDepth(bitDepth: 32, calibrated: false, outputBitDepth: 16) == .float32)
    }
}
