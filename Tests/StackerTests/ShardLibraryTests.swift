import Foundation
import Registration
import SceneGen
import Stacker
import TestSupport
import Testing

/// The shard face of the library (no @testable): `register` over slices,
/// `stackPartialSums`, `ShardMerge`, on a small scene held in memory.
@Suite("Shards through the library")
struct ShardLibraryTests {
    static func frames() -> [FrameSource] {
        var config = SceneConfig.street
        config.width = 96
        config.height = 72
        config.frameCount = 6
        config.seed = 5
        return SceneGenerator.render(config).frames.map { .image($0) }
    }

    @Test("slices registered apart give the records of one run over every frame")
    func registerSlices() throws {
        let frames = Self.frames()
        var options = StackOptions()
        options.referenceIndex = 2
        options.threads = 2
        let whole = try register(frames, options: options)
        #expect(whole.image.pixelCount == 0)
        for range in [0..<2, 2..<6] {
            options.frameRange = range
            let slice = try register(frames, options: options)
            #expect(slice.frames[range].map(\.transform) == whole.frames[range].map(\.transform))
            #expect(slice.frames[range].map(\.used) == whole.frames[range].map(\.used))
            // Frames outside the slice are left out, saying so.
            #expect(slice.frames.indices.filter { !range.contains($0) }.allSatisfy { !slice.frames[$0].used })
        }
    }

    @Test("partial sums of two slices, written and merged, are the average within float rounding")
    func partialSums() throws {
        let folder = try TestFiles.temporaryFolder("shard-library")
        defer { TestFiles.remove(folder) }
        let frames = Self.frames()
        var options = StackOptions()
        options.threads = 2
        options.givenTransforms = try register(frames, options: options).frames.map(\.transform)
        let oneShot = try stack(frames, options: options)
        var paths: [String] = []
        for (i, range) in [0..<4, 4..<6].enumerated() {
            options.frameRange = range
            let sums = try #require(try stackPartialSums(frames, options: options).partialSums)
            #expect(sums.frames == range && sums.sums.count == 3)
            paths.append("\(folder)/part-\(i).fits")
            try sums.write(to: paths[i])
        }
        let merged = try ShardMerge.merge(paths).image
        var largest: Float = 0
        for c in 0..<3 {
            for (a, b) in zip(oneShot.image.planes[c].pixels, merged.planes[c].pixels) { largest = max(largest, abs(a - b)) }
        }
        #expect(largest <= 1e-6, "largest difference \(largest)")
        print("ShardLibraryTests.partialSums: largest |merged − one-shot| = \(largest)")
        // A robust mode has no partial sums.
        options.mode = .median
        #expect(throws: StackerError.self) { try stackPartialSums(frames, options: options) }
    }
}
