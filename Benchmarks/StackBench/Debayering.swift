import Foundation
import Glibc
import Registration
import SceneGen
import Stacker

/// Each `--debayer` method alone, in process, on one thread: a 6000 × 4000
/// RGGB mosaic (a smooth pattern plus uniform noise), `DebayerMethod.image`
/// timed per call in the calling thread's CPU seconds, to set beside
/// LibRaw's unpack of a 24 MP raw (the target: RCD-quality
/// debayering within 0.3 × the unpack on one core).
struct DebayerBench {
    static let width = 6000, height = 4000

    static func mosaic() -> Plane {
        var rng = SplitMix64(seed: 25, stream: 0x4442_4159) // "DBAY"
        return Plane(width: width, height: height, pixels: (0..<(width * height)).map { i in
            let x = Float(i % width), y = Float(i / width)
            let smooth = 0.4 + 0.3 * sin(x * 0.013) * cos(y * 0.021) + 0.1 * sin((x + y) * 0.4)
            return smooth + 0.05 * Float(rng.unit())
        })
    }

    /// This thread's CPU seconds so far.
    static func threadCPU() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}

extension Bench {
    /// `DebayerMethod.image` for each method on a 24 MP mosaic (see
    /// `DebayerBench`), `--repeat` calls each, the median reported.
    func debayerCases() throws {
        let b = DebayerBench.self
        log("[debayer] making a \(b.width)×\(b.height) RGGB mosaic …")
        let mosaic = b.mosaic()
        let megapixels = Double(b.width * b.height) / 1e6
        for method in DebayerMethod.allCases {
            let load = loadAverage()
            var samples: [Sample] = []
            for _ in 0..<settings.repeats {
                let t0 = now(), c0 = b.threadCPU()
                let rgb = method.image(from: mosaic, pattern: .rggb)
                samples.append(Sample(wall: now() - t0, cpu: b.threadCPU() - c0, load: load))
                precondition(rgb.width == b.width)
            }
            var c = CaseResult(name: "debayer \(method.rawValue)",
                               what: "DebayerMethod.image, \(b.width)×\(b.height) RGGB mosaic, 1 thread",
                               frames: 1, megapixels: megapixels, samples: samples)
            c.extra = ["cpu_s": c.medianCPU, "cpu_ns_per_pixel": c.medianCPU / megapixels * 1000]
            c.note = String(format: "%.3f CPU-s per 24 MP", c.medianCPU)
            report.cases.append(c)
            log("  \(c.name): \(Fmt.s(c.medianWall)) s wall, \(c.note)")
        }
    }
}
