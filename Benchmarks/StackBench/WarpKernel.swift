#if canImport(Glibc)
import Glibc
#endif
import Registration

/// `stack-bench warp-kernel`: the two-pass warp alone, on one thread: a
/// 4000 × 3000 8-bit plane and two 2000 × 1500 ones (a 12 MP JPEG's Y, Cb
/// and Cr) resampled through a near-identity homography (0.3° rotation, a
/// little perspective), in nanoseconds per output sample; median of 5.
/// Then the homography's score check: a 500 × 375 float plane warped
/// bicubically, by the general warp and in two passes.
enum WarpKernelBench {
    static func run() {
        func plane(_ w: Int, _ h: Int, seed: UInt64) -> BytePlane {
            var s = seed
            var pixels = [UInt8](repeating: 0, count: w * h)
            for i in 0..<pixels.count {
                s = s &* 6364136223846793005 &+ 1442695040888963407
                let x = i % w, y = i / w
                let smooth = 128 + 60 * sin(Double(x) * 0.05) * cos(Double(y) * 0.031)
                pixels[i] = UInt8(clamping: Int(smooth) + Int(s >> 61) - 4)
            }
            return BytePlane(width: w, height: h, pixels: pixels)
        }
        let a = 0.3 * Double.pi / 180
        func transform(_ scale: Double) -> Transform {
            Transform(matrix: [cos(a), -sin(a), 3.3 * scale, sin(a), cos(a), -2.7 * scale,
                               2e-6 / scale, -1.5e-6 / scale, 1])
        }
        let sets: [(String, [BytePlane], Double)] = [("Y 4000×3000", [plane(4000, 3000, seed: 1)], 1),
                                                      ("CbCr 2000×1500", [plane(2000, 1500, seed: 2), plane(2000, 1500, seed: 3)], 0.5)]
        for (name, planes, scale) in sets {
            let w = planes[0].width, h = planes[0].height
            guard let rows = RowWarper(planes, by: transform(scale), width: w, height: h)?.resamplingInTwoPasses() else {
                print("\(name): no warper"); continue
            }
            // As the deferred store warps: 16,384 samples a band (4 rows at 12 MP).
            let band = max(1, 16_384 / w)
            let outputs = planes.map { _ in UnsafeMutablePointer<Float>.allocate(capacity: w * band) }
            var times: [Double] = []
            var check = 0.0
            for _ in 0..<5 {
                let start = DebayerBench.threadCPU()
                var y = 0
                while y < h {
                    rows.warp(rows: y..<min(h, y + band), into: outputs, coverage: nil)
                    for o in outputs { check += Double(o[y % w]) }
                    y += band
                }
                times.append(DebayerBench.threadCPU() - start)
            }
            times.sort()
            let samples = Double(w * h * planes.count)
            print("\(name): two passes \(rows.resamplesInTwoPasses), \(String(format: "%.2f", times[2] * 1e3)) ms, \(String(format: "%.3f", times[2] * 1e9 / samples)) ns/sample, checksum \(String(format: "%.4f", check))")
            outputs.forEach { $0.deallocate() }
        }
        let score = plane(500, 375, seed: 4).floats
        for twoPass in [false, true] {
            guard let general = RowWarper([score], by: transform(0.125), width: 500, height: 375, interpolation: .bicubic) else { continue }
            let rows = twoPass ? general.resamplingInTwoPasses() : general
            var times: [Double] = []
            for _ in 0..<21 {
                let start = Bench.processCPU()
                let out = Warper.warp(rows)      // its bands run on worker threads
                times.append(Bench.processCPU() - start)
                precondition(out.planes.count == 1)
            }
            times.sort()
            print("score level 500×375 bicubic, \(rows.resamplesInTwoPasses ? "two passes" : "general warp"): \(String(format: "%.3f", times[10] * 1e3)) ms of CPU")
        }
    }
}
