import Foundation
import Testing
import Registration
import SceneGen
@testable import Stacker
import TestSupport

/// `DeferredWarpStore` keeps frames as decoded and warps them strip by strip
/// as it reduces: it must give a `FrameStore`'s result bit for bit.
@Suite("Deferred-warp store")
struct DeferredWarpStoreTests {
    /// Random 8-bit frames with bright "objects", each with a subpixel
    /// translation (whole-pixel for frame 0), as warpers onto a
    /// `width × height` grid.
    static func warpers(width: Int, height: Int, channels: Int, frames: Int, seed: UInt64) -> [RowWarper] {
        var rng = TestRandom(seed: seed)
        return (0..<frames).map { f in
            let planes = (0..<channels).map { c in
                BytePlane(width: width, height: height, pixels: (0..<width * height).map { _ in
                    rng.uniform() < 0.1 ? UInt8(230 + rng.int(in: 0...25)) : UInt8(60 + 30 * c + rng.int(in: 0...20))
                })
            }
            let dx = f == 0 ? 0 : 6 * rng.uniform() - 3, dy = f == 0 ? 1 : 6 * rng.uniform() - 3
            return RowWarper(planes, by: .translation(dx: dx, dy: dy), width: width, height: height)!
        }
    }

    /// Per-channel gains for some frames (none for the others).
    static func gains(_ f: Int, channels: Int) -> [(gain: Float, offset: Float)] {
        f % 3 == 1 ? (0..<channels).map { (gain: 0.9 + 0.05 * Float($0), offset: 0.02) } : []
    }

    @Test("reduces bit for bit like a FrameStore given the same warps: every kernel, 8 and 16 bits, 1 and 3 threads, a frame never stored",
          arguments: [1, 3])
    func matchesFrameStore(_ channels: Int) throws {
        let w = 57, h = 29, n = 11
        let frames = Self.warpers(width: w, height: h, channels: channels, frames: n, seed: UInt64(80 + channels))
        let weights: [Float] = (0..<n).map { 0.5 + 0.1 * Float($0 % 4) }
        for depth in [FrameStore.SampleDepth.eight, .sixteen] {
            let store = try FrameStore(width: w, height: h, channels: channels, frameCount: n, depth: depth,
                                       memoryLimit: 1 << 30, temporaryDirectory: "")
            let deferred = try DeferredWarpStore(width: w, height: h, channels: channels, frameCount: n, depth: depth,
                                                 memoryLimit: 1 << 30, temporaryDirectory: "")
            #expect(deferred.stripRows < h, "several strips")
            for f in 0..<n where f != 4 {
                try store.store(frame: f, warping: frames[f], gains: Self.gains(f, channels: channels))
                try deferred.store(frame: f, warping: frames[f], gains: Self.gains(f, channels: channels))
            }
            #expect(deferred.storedFrameCount == n - 1 && deferred.warpedFrameCount == 0)
            for kernel in FrameStoreTests.kernels {
                let expected = try store.reduceImage(kernel, weights: weights, threads: 2)
                for threads in [1, 3] {
                    let (image, share) = try deferred.reduceTimed(kernel, weights: weights, threads: threads)
                    #expect(image == expected, "\(kernel), \(depth), \(threads) threads")
                    #expect(share > 0 && share < 1)
                }
            }
        }
    }

    @Test("frames past the memory limit or held as floats are warped at once (in memory or a temporary file) and reduce the same")
    func warpsWhatItCannotKeep() throws {
        let w = 40, h = 24, n = 7
        var frames = Self.warpers(width: w, height: h, channels: 1, frames: n, seed: 91)
        // Frame 5 as floats, as a frame converted to the reference's form is.
        var rng = TestRandom(seed: 92)
        let floats = Plane(width: w, height: h, pixels: (0..<w * h).map { _ in Float(rng.uniform()) })
        frames[5] = RowWarper([floats], by: .translation(dx: 0.5, dy: -1.25), width: w, height: h)!
        let weights = [Float](repeating: 1, count: n)
        let store = try FrameStore(width: w, height: h, channels: 1, frameCount: n, depth: .sixteen,
                                   memoryLimit: 1 << 30, temporaryDirectory: "")
        for f in 0..<n { try store.store(frame: f, warping: frames[f]) }
        let expected = try store.reduceImage(.median, weights: weights, threads: 2)
        let folder = try TestFiles.temporaryFolder("deferred")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Room for three frames' bytes, then for none at all.
        for (limit, warped) in [(3 * w * h, 4), (1 << 30, 1), (0, n)] {
            let deferred = try DeferredWarpStore(width: w, height: h, channels: 1, frameCount: n, depth: .sixteen,
                                                 memoryLimit: limit, temporaryDirectory: folder)
            for f in 0..<n { try deferred.store(frame: f, warping: frames[f]) }
            #expect(deferred.warpedFrameCount == warped, "limit \(limit)")
            #expect(try deferred.reduceImage(.median, weights: weights, threads: 2) == expected, "limit \(limit)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
            deferred.removeAll()
            #expect(deferred.storedFrameCount == 0)
            #expect(try deferred.reduceImage(.median, weights: weights, threads: 2).planes[0].pixels.allSatisfy { $0 == 0 })
        }
    }

    @Test("a resident limit below the process's own memory sends every frame to a file, one above it keeps them; the bits are the same")
    func residentLimit() throws {
        let w = 40, h = 24, n = 5
        let frames = Self.warpers(width: w, height: h, channels: 1, frames: n, seed: 91)
        let weights = [Float](repeating: 1, count: n)
        let resident = try #require(Platform.residentBytes())
        #expect(resident > 1 << 20, "a Swift test process holds more than 1 MB")
        let starved = try DeferredWarpStore(width: w, height: h, channels: 1, frameCount: n, depth: .eight,
                                            memoryLimit: 1 << 30, residentLimit: 1 << 20, temporaryDirectory: "")
        let roomy = try DeferredWarpStore(width: w, height: h, channels: 1, frameCount: n, depth: .eight,
                                          memoryLimit: 1 << 30, residentLimit: resident + (1 << 30), temporaryDirectory: "")
        for f in 0..<n {
            try starved.store(frame: f, warping: frames[f])
            try roomy.store(frame: f, warping: frames[f])
        }
        #expect(starved.warpedFrameCount == n)
        #expect(roomy.warpedFrameCount == 0)
        #expect(try starved.reduceImage(.median, weights: weights, threads: 2)
                == roomy.reduceImage(.median, weights: weights, threads: 2))
    }

    @Test("bad indices, sizes and weights throw invalidInput")
    func badInput() throws {
        let frames = Self.warpers(width: 20, height: 16, channels: 1, frames: 2, seed: 3)
        let store = try DeferredWarpStore(width: 20, height: 16, channels: 1, frameCount: 2, depth: .eight,
                                          memoryLimit: 1 << 20, temporaryDirectory: "")
        #expect(throws: StackerError.self) { try store.store(frame: 2, warping: frames[0]) }
        let other = Self.warpers(width: 21, height: 16, channels: 1, frames: 1, seed: 4)
        #expect(throws: StackerError.self) { try store.store(frame: 0, warping: other[0]) }
        #expect(throws: StackerError.self) { try store.reduceImage(.median, weights: [1], threads: 1) }
        #expect(throws: StackerError.self) { try store.reduceImage(.median, weights: [1, -.infinity], threads: 1) }
        #expect(throws: StackerError.self) {
            try DeferredWarpStore(width: 0, height: 16, channels: 1, frameCount: 2, depth: .eight,
                                  memoryLimit: 1 << 20, temporaryDirectory: "")
        }
    }

    @Test("a JPEG burst stacks to the same bits with warps deferred and, under a memory limit too small for that, warped into the store",
          arguments: [StackMode.median, .sigmaClip, .mode])
    func pipelineSameEitherWay(_ mode: StackMode) throws {
        let c = SceneBurst.street(width: 120, height: 90, frames: 6, seed: 21)
        let (_, paths, folder) = try YCbCrStackingTests.burst420(c)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var o = StackOptions()
        o.mode = mode
        o.temporaryDirectory = FilePath(folder)
        let deferred = try StackPipeline.run(paths: paths, options: o)
        // Below the decoded bytes (6 × 120 × 90 × 1.5), so the frames are warped as they come.
        o.memoryLimit = 6 * 120 * 90
        let stored = try StackPipeline.run(paths: paths, options: o)
        #expect(deferred.image == stored.image)
        #expect(deferred.timings.warp > 0)
    }
}
