import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

/// `StackOptions.keep` through the pipeline on JPEG frames, whose robust
/// stores are Y and Cb, Cr: a dropped frame leaves both.
@Suite("Frame selection in the pipeline")
struct KeepStackingTests {
    @Test("keeping 4 of 6 JPEG frames gives the image of those 4 stacked alone, for the median and the average",
          arguments: [StackMode.median, .average])
    func sameAsKeptFramesAlone(_ mode: StackMode) throws {
        var o = StackOptions()
        o.mode = mode
        o.minimumScore = 0
        o.keep = .count(4)
        let (_, paths, folder) = try YCbCrStackingTests.burst420(SceneBurst.street(width: 320, height: 240, frames: 6, seed: 9))
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let kept = try StackPipeline.run(paths: paths, options: o)
        let selection = try #require(kept.selection)
        #expect(selection.kept == 4 && selection.dropped.count == 2 && selection.measure == .score)
        let keptIndices = kept.frames.indices.filter { kept.frames[$0].used }
        #expect(keptIndices.count == 4 && keptIndices.first == 0)
        for (index, value) in selection.dropped {
            #expect(kept.frames[index].score == value && value <= selection.cutoff)
            #expect(kept.frames[index].reason?.contains("--keep") == true)
        }
        o.keep = nil
        // The streaming average folds in floats; under --keep it is a
        // store's mean. Keeping 4 of the 4 frames drops none but takes
        // the same store path, so the images must match exactly.
        if mode == .average { o.keep = .count(4) }
        let alone = try StackPipeline.run(paths: keptIndices.map { paths[$0] }, options: o)
        if mode == .median {
            #expect(alone.image == kept.image)
        } else {
            #expect(alone.selection == nil)
            #expect(alone.image == kept.image)
        }
    }
}
