import Foundation
import Registration
import SceneGen
import Stacker

/// The robust kernels alone, in process: a `FrameStore` of 20 frames ×
/// 1000 × 1000 × RGB filled with synthetic frames (a level per channel plus
/// Gaussian noise of σ 0.02, coverage missing in a few columns on the left
/// of three frames in four), then `FrameStore.reduce` timed per kernel at
/// 1 and 2 threads, in 16- and 8-bit stores. No files, no decode, no
/// registration: what the row-band reduce itself costs. The rejection
/// family's `reject-…` cases give its time per sample beside sigma-clip's.
struct KernelBench {
    static let width = 1000, height = 1000, channels = 3, frames = 20
    static let kernels: [(name: String, kernel: RobustKernel)] = [
        ("median", .median), ("sigma-clip", .sigmaClip), ("mode", .mode),
        ("sigma-clip-0-passes", .sigmaClip(kappaLow: 3, kappaHigh: 3, maxIterations: 0)),
    ] + RejectionAlgorithm.Name.allCases.filter { $0 != .sigma }.map {
        // The rest of the rejection family (`--reject`), on the per-pixel path.
        ("reject-\($0.rawValue)", .rejection(.named($0)))
    }

    /// A filled store of `depth`; returns it with the median time to store one frame.
    static func filledStore(depth: FrameStore.SampleDepth, in folder: String) throws -> (FrameStore, Double) {
        var rng = SplitMix64(seed: 50, stream: 0x4B45_524E) // "KERN"
        let store = try FrameStore(width: width, height: height, channels: channels, frameCount: frames,
                                   depth: depth, memoryLimit: 1 << 31, temporaryDirectory: folder)
        // A table of noise read at a random offset per plane: filling 60 M
        // samples from the generator directly would take longer than the reduce.
        var noise = [Float](repeating: 0, count: 1 << 16)
        for i in noise.indices {
            let u1 = max(rng.unit(), 1e-300), u2 = rng.unit()
            noise[i] = Float(0.02 * (-2 * Foundation.log(u1)).squareRoot() * cos(2 * Double.pi * u2))
        }
        var storeTimes: [Double] = []
        for f in 0..<frames {
            let planes = (0..<channels).map { ch -> Plane in
                let offset = rng.below(1 << 16)
                let level = 0.3 + 0.1 * Float(ch)
                return Plane(width: width, height: height,
                             pixels: (0..<(width * height)).map { level + noise[($0 &+ offset) & 0xFFFF] })
            }
            var coverage = Plane(width: width, height: height, repeating: 1)
            for y in 0..<height { for x in 0..<(f % 4) { coverage[x, y] = 0 } }
            let t0 = now()
            try store.store(frame: f, planes: planes, coverage: coverage)
            storeTimes.append(now() - t0)
        }
        return (store, Stats.median(storeTimes))
    }
}

extension Bench {
    /// `FrameStore.reduce` throughput for each robust kernel (see
    /// `KernelBench`), `--repeat` runs each, the median reported; with
    /// `--kernel NAME` only that kernel (e.g. under `perf record`).
    func kernelCases() throws {
        let b = KernelBench.self
        let chosen = b.kernels.filter { settings.kernel == nil || settings.kernel == $0.name }
        let weights = [Float](repeating: 1, count: b.frames)
        let megapixels = Double(b.width * b.height) / 1e6
        for depth in [FrameStore.SampleDepth.sixteen, .eight] {
            let bits = depth.bytes * 8
            log("[kernels \(bits)-bit] filling a \(b.frames) × \(b.width)×\(b.height) × \(b.channels) store …")
            let (store, storeTime) = try b.filledStore(depth: depth, in: outDir)
            for (name, kernel) in chosen {
                for threads in [1, 2] {
                    let load = loadAverage()
                    var samples: [Sample] = []
                    for _ in 0..<settings.repeats {
                        let t0 = now()
                        _ = try store.reduce(kernel, weights: weights, threads: threads)
                        samples.append(Sample(wall: now() - t0, load: load))
                    }
                    var c = CaseResult(name: "\(name) \(bits)b \(threads)t",
                                       what: "FrameStore.reduce, \(b.frames) frames × 1 MP × RGB in memory, \(threads) thread(s)",
                                       frames: b.frames, megapixels: megapixels, samples: samples)
                    let mpps = megapixels / c.medianWall
                    c.extra = ["megapixels_per_s": mpps, "msamples_per_s": mpps * Double(b.frames * b.channels),
                               "store_s_per_frame": storeTime, "store_bytes": Double(store.byteCount)]
                    c.note = String(format: "%.1f MP/s, %.0f M samples/s", mpps, mpps * Double(b.frames * b.channels))
                    report.cases.append(c)
                    log("  \(c.name): \(Fmt.s(c.medianWall)) s, \(c.note)")
                }
            }
            log("  store: \(Fmt.s(storeTime * 1000)) ms per frame (\(store.byteCount / 1_000_000) MB store)")
        }
    }
}
