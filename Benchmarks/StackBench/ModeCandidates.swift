import Foundation
import Registration
import SceneGen
import Stacker

/// The mode past `ModeCluster.candidateLimit` samples, in process: what
/// its cost per sample does as the frame count grows, and what choosing
/// the cluster among a fixed number of candidate centres costs in quality
/// against the exact definition (every sample a candidate).
struct ModeCandidateBench {
    /// Frame counts of the cost sweep (first frames of one 1,000-frame scene).
    static let costCounts = [3, 8, 16, 20, 24, 32, 48, 64, 100, 200, 500, 1000]
    /// The cost sweep's frame size (an 8-bit RGB store, one thread).
    static let costWidth = 256, costHeight = 128
    /// The quality scenes' frame size.
    static let width = 256, height = 192
    /// Candidate counts compared with the exact definition.
    static let limits = [16, 24, 32]

    /// A crowd scene (movers in vivid colours, the background the largest
    /// cluster at every pixel) with movers on up to `coverage` of the
    /// frames, no camera shake: frame pixels are already registered.
    static func scene(frames: Int, coverage: Double, preset: SceneConfig, seed: UInt64,
                      width: Int, height: Int) -> Scene {
        var c = preset
        c.width = width
        c.height = height
        c.frameCount = frames
        c.seed = seed
        c.objectCoverage = coverage
        c.explicitShifts = [FrameShift](repeating: FrameShift(dx: 0, dy: 0), count: frames)
        return SceneGenerator.render(c)
    }

    /// Each pixel's samples of the scene (all frames, all channels).
    static func samples(_ scene: Scene, pixel p: Int) -> [[Float]] {
        scene.frames.map { f in f.planes.map { $0.pixels[p] } }
    }
}

extension Bench {
    /// `ModeCandidateBench`: the cost sweep, then the quality comparison.
    func modeCandidates() throws {
        try modeCostSweep()
        modeQuality()
    }

    /// CPU-seconds per sample of `FrameStore.reduce(.mode)`, one thread,
    /// at each of `costCounts` frames; the ratio of each to the 20-frame
    /// figure is the "flat in N" check.
    private func modeCostSweep() throws {
        let b = ModeCandidateBench.self
        let most = b.costCounts.max()!
        log("[mode-candidates] rendering \(most) × \(b.costWidth)×\(b.costHeight) crowd frames …")
        let scene = b.scene(frames: most, coverage: 0.45, preset: .crowd, seed: 31,
                            width: b.costWidth, height: b.costHeight)
        let coverage = Plane(width: b.costWidth, height: b.costHeight, repeating: 1)
        var perSample: [Int: Double] = [:]
        for k in b.costCounts {
            let store = try FrameStore(width: b.costWidth, height: b.costHeight, channels: 3, frameCount: k,
                                       depth: .eight, memoryLimit: 1 << 31, temporaryDirectory: outDir)
            for f in 0..<k { try store.store(frame: f, planes: scene.frames[f].planes, coverage: coverage) }
            var samples: [Sample] = []
            for _ in 0..<settings.repeats {
                samples.append(try EffectBench.timed {
                    _ = try store.reduce(.mode, weights: [Float](repeating: 1, count: k), threads: 1)
                })
            }
            var c = CaseResult(name: "mode kernel \(k) frames", what: "FrameStore.reduce(.mode), 8-bit RGB, 1 thread",
                               frames: k, megapixels: Double(b.costWidth * b.costHeight) / 1e6, samples: samples)
            let ns = c.medianCPU / Double(b.costWidth * b.costHeight * k) * 1e9
            perSample[k] = ns
            c.extra = ["cpu_ns_per_sample": ns]
            c.note = String(format: "%.1f CPU-ns per pixel-sample", ns)
            report.cases.append(c)
            log("  \(k) frames: \(c.note)")
        }
        // The exact definition against the candidates on the same pixels,
        // through the per-pixel API (an array per call, the same overhead for both).
        let pixels = 2048
        for k in [20, 200, 1000] {
            let sets = (0..<pixels).map { p in (0..<k).map { f in scene.frames[f].planes.map { $0.pixels[p * 16] } } }
            for (label, m) in [("exact", Int.max), ("\(ModeCluster.candidateLimit) candidates", ModeCluster.candidateLimit)] {
                let sample = EffectBench.timed { for x in sets { _ = ModeCluster.mode(x, candidateLimit: m) } }
                var c = CaseResult(name: "mode per pixel \(label) \(k) samples", what: "ModeCluster.mode([[Float]]), RGB",
                                   frames: k, megapixels: Double(pixels) / 1e6, samples: [sample])
                let ns = sample.cpu / Double(pixels * k) * 1e9
                c.extra = ["cpu_ns_per_sample": ns]
                c.note = String(format: "%.1f CPU-ns per pixel-sample", ns)
                report.cases.append(c)
                log("  per pixel, \(label), \(k) samples: \(c.note)")
            }
        }
        if let a = perSample[20] {
            for k in [200, 1000] {
                if let x = perSample[k] {
                    check("mode kernel: CPU per sample at \(k) / at 20 frames", x / a, "≤ 1.3×") { $0 <= 1.3 }
                }
            }
        }
    }

    /// Exact mode against candidates from `limits` on crowd and street
    /// scenes of 100–300 frames: PSNR against the truth of each, the share
    /// of pixels whose output differs at all, and the share where it
    /// differs by more than τ/2 in some channel (another cluster chosen).
    private func modeQuality() {
        let b = ModeCandidateBench.self
        let tau = ModeCluster.defaultTolerance
        let runs: [(name: String, preset: SceneConfig, frames: Int, coverage: Double)] = [
            ("crowd", .crowd, 100, 0.45), ("crowd", .crowd, 200, 0.45), ("crowd", .crowd, 300, 0.45),
            ("crowd", .crowd, 200, 0.25), ("street", .street, 200, 0.3),
        ]
        for run in runs {
            log("[mode-candidates] \(run.name) \(run.frames) frames, movers ≤ \(Int(run.coverage * 100)) % …")
            let scene = b.scene(frames: run.frames, coverage: run.coverage, preset: run.preset, seed: 32,
                                width: b.width, height: b.height)
            let pixels = b.width * b.height
            var outputs = [[Float]](repeating: [Float](repeating: 0, count: 3 * pixels), count: b.limits.count + 1)
            let limits = [Int.max] + b.limits
            let load = loadAverage()
            let t0 = now()
            for p in 0..<pixels {
                let samples = b.samples(scene, pixel: p)
                for (i, m) in limits.enumerated() {
                    let v = ModeCluster.mode(samples, tolerance: tau, candidateLimit: m)
                    for ch in 0..<3 { outputs[i][ch * pixels + p] = v[ch] }
                }
            }
            func image(_ o: [Float]) -> Image {
                Image(width: b.width, height: b.height,
                      planes: (0..<3).map { Plane(width: b.width, height: b.height,
                                                  pixels: Array(o[($0 * pixels)..<(($0 + 1) * pixels)])) })
            }
            let elapsed = Sample(wall: now() - t0, load: load)
            let exact = image(outputs[0])
            let exactPSNR = ImageMetrics.psnr(exact, scene.groundTruth)
            for (i, m) in b.limits.enumerated() {
                let sub = outputs[i + 1]
                var differ = 0, otherCluster = 0
                var worst: Float = 0
                for p in 0..<pixels {
                    let d = (0..<3).map { abs(sub[$0 * pixels + p] - outputs[0][$0 * pixels + p]) }.max()!
                    if d > 0 { differ += 1 }
                    if d > tau / 2 { otherCluster += 1 }
                    worst = max(worst, d)
                }
                let psnr = ImageMetrics.psnr(image(sub), scene.groundTruth)
                var c = CaseResult(name: "mode \(m) candidates, \(run.name) \(run.frames) frames ≤ \(Int(run.coverage * 100)) %",
                                   what: "ModeCluster against the exact mode, \(b.width)×\(b.height), no shake",
                                   frames: run.frames, megapixels: Double(pixels) / 1e6, samples: [elapsed])
                c.extra = ["psnr_exact_db": exactPSNR, "psnr_candidates_db": psnr,
                           "pixels_differing": Double(differ) / Double(pixels),
                           "pixels_other_cluster": Double(otherCluster) / Double(pixels),
                           "largest_difference": Double(worst)]
                c.note = String(format: "PSNR %.3f dB (exact %.3f); %.3f %% of pixels differ, %.4f %% by > τ/2; largest %.4f",
                                psnr, exactPSNR, 100 * Double(differ) / Double(pixels),
                                100 * Double(otherCluster) / Double(pixels), worst)
                report.cases.append(c)
                log("  \(m) candidates: \(c.note)")
            }
        }
    }
}
