import Foundation
import Testing
import Registration
@testable import Stacker

/// Throughput of the strip reducer: 20 frames × 1 MP × 3 channels. Prints,
/// asserts nothing about time (machines differ). Off by default; run with
/// `STACK_BENCH=1 swift test -c release -Xswiftc -enable-testing --filter KernelThroughput`
/// (`STACK_BENCH_ONLY=median` limits it to one kernel, e.g. under `perf record`).
@Suite("Kernel throughput")
struct KernelThroughputTests {
    @Test("reduce time for median, sigma-clip and mode, 20 frames × 1 MP × RGB, 16- and 8-bit stores",
          .enabled(if: ProcessInfo.processInfo.environment["STACK_BENCH"] != nil),
          .serialized, arguments: [FrameStore.SampleDepth.sixteen, .eight])
    func reduceThroughput(_ depth: FrameStore.SampleDepth) throws {
        let w = 1000, h = 1000, c = 3, n = 20
        var rng = KernelRNG(seed: 50)
        let store = try FrameStore(width: w, height: h, channels: c, frameCount: n, depth: depth,
                                   memoryLimit: 1 << 31, temporaryDirectory: "/tmp")
        print("\(depth.bytes * 8)-bit store")
        var noise = [Float](repeating: 0, count: 1 << 16)
        for i in 0..<noise.count { noise[i] = Float(0.02 * rng.gaussian()) }
        let clock = ContinuousClock()
        var storeTime = Duration.zero
        for f in 0..<n {
            var planes: [Plane] = []
            for ch in 0..<c {
                var p = Plane(width: w, height: h)
                let offset = rng.int(in: 0...65535)
                for i in 0..<p.count {
                    p.pixels[i] = 0.3 + 0.1 * Float(ch) + noise[(i &+ offset) & 0xFFFF]
                }
                planes.append(p)
            }
            var cov = Plane(width: w, height: h, repeating: 1)
            for y in 0..<h { for x in 0..<(f % 4) { cov[x, y] = 0 } }
            let t0 = clock.now
            try store.store(frame: f, planes: planes, coverage: cov)
            storeTime += clock.now - t0
        }
        print("store: \(storeTime / n) per frame (\(store.byteCount / 1_000_000) MB store)")
        let weights = [Float](repeating: 1, count: n)
        let kernels: [(String, RobustKernel)] = [("median", .median), ("sigma-clip", .sigmaClip),
                                                 ("mode", .mode),
                                                 ("sigma-clip 0 passes", .sigmaClip(kappaLow: 3, kappaHigh: 3, maxIterations: 0))]
        let only = ProcessInfo.processInfo.environment["STACK_BENCH_ONLY"]
        for (name, kernel) in kernels where only == nil || only == name {
            for threads in [1, 2] {
                var times: [Double] = []
                for _ in 0..<3 {
                    let t0 = clock.now
                    _ = try store.reduce(kernel, weights: weights, threads: threads)
                    let d = clock.now - t0
                    times.append(Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18)
                }
                let median = times.sorted()[1]
                let mpps = Double(w * h) / median / 1e6
                print(String(format: "%@ threads %d: median of 3 runs %.3f s, %.1f MP/s (%.0f M samples/s)",
                             name, threads, median, mpps, mpps * Double(n * c)))
            }
        }
        // Scalar path for comparison (what the SIMD network buys).
        let t0 = clock.now
        _ = try store.reduce(.median, weights: weights, threads: 1, networkLimit: 0)
        print("median scalar path threads 1: \(clock.now - t0)")
        let t1 = clock.now
        _ = try store.reduce(.sigmaClip, weights: weights, threads: 1, networkLimit: 0)
        print("sigma-clip scalar path threads 1: \(clock.now - t1)")
    }
}
