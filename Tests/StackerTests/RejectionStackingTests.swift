import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

/// The rejection family through the whole pipeline, on a JPEG street burst
/// whose passers-by are the outliers: the Y, Cb, Cr path with warps
/// deferred, and the RGB path a rejection map takes.
@Suite("Rejection family in the pipeline")
struct RejectionStackingTests {
    @Test("every --reject algorithm beats the average against the truth on a 4:2:0 burst with passers-by, the same bytes on 1 and 2 threads",
          arguments: RejectionAlgorithm.Name.allCases)
    func streetBurst(_ name: RejectionAlgorithm.Name) throws {
        let c = SceneBurst.street(width: 320, height: 240, frames: 8, seed: 5)
        let (scene, paths, folder) = try YCbCrStackingTests.burst420(c)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let border = Int(c.maxShift.rounded(.up)) + 3
        var o = StackOptions()
        o.threads = 2
        let average = try StackPipeline.run(paths: paths, options: o).image
        // Percentile's default bounds (−20 %, +10 % of the median) are for
        // astro data of few frames; on a street they keep no passer-by out
        // of dark pixels, so it gets symmetric 10 % bounds here.
        o.rejection = name == .percentile ? .percentile(low: 0.1, high: 0.1) : .named(name)
        let result = try StackPipeline.run(paths: paths, options: o)
        o.threads = 1
        #expect(try StackPipeline.run(paths: paths, options: o).image == result.image)
        let p = ImageMetrics.psnr(result.image, scene.groundTruth, border: border)
        let pAverage = ImageMetrics.psnr(average, scene.groundTruth, border: border)
        print("street burst, --reject \(name.rawValue): \(p) dB, average \(pAverage) dB")
        // The average keeps ghosts of the passers-by (30.1 dB); the median
        // and sigma-clip score 37.7–37.8 dB on this burst (YCbCrStackingTests).
        #expect(p > pAverage + 5, "\(name.rawValue): \(p) dB against the average's \(pAverage) dB")
        #expect(result.rejectionMap == nil)
    }

    @Test("with a rejection map the run stacks RGB, the map has the output's size and shows rejections where passers-by walked")
    func mapOnStreetBurst() throws {
        let c = SceneBurst.street(width: 320, height: 240, frames: 8, seed: 5)
        let (scene, paths, folder) = try YCbCrStackingTests.burst420(c)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var o = StackOptions()
        o.rejection = .named(.mad)
        o.makesRejectionMap = true
        let result = try StackPipeline.run(paths: paths, options: o)
        let map = try #require(result.rejectionMap)
        #expect(map.low.width == 320 && map.low.height == 240 && map.high.width == 320)
        // Where any frame shows a passer-by, more is rejected than elsewhere.
        let mask = scene.transientMask.pixels
        var inside = 0.0, outside = 0.0, nIn = 0, nOut = 0
        for p in mask.indices {
            let r = Double(map.low.pixels[p] + map.high.pixels[p])
            if mask[p] > 0.5 { inside += r; nIn += 1 } else { outside += r; nOut += 1 }
        }
        let meanIn = inside / Double(max(nIn, 1)), meanOut = outside / Double(max(nOut, 1))
        print("rejected where passers-by walked \(meanIn), elsewhere \(meanOut)")
        #expect(nIn > 0 && meanIn > 3 * meanOut)
        #expect(map.low.pixels.allSatisfy { (0...1).contains($0) } && map.high.pixels.allSatisfy { (0...1).contains($0) })
    }

    @Test("a rejection map without a rejecting stack is refused before any frame is read")
    func mapNeedsRejection() {
        var o = StackOptions()
        o.mode = .median
        o.makesRejectionMap = true
        #expect(throws: StackerError.self) { try StackPipeline.run(paths: ["a.jpg", "b.jpg"], options: o) }
    }
}
