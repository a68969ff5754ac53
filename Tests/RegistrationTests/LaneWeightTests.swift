import Testing
@testable import Registration

/// The two-pass warp's per-lane weights (`LaneWeightPolynomials`, computed
/// by the C kernels `warp_lane_taps` and `warp_lane_spread`) against each
/// kernel's own formula (`Interpolation.weights`) at the lanes' exact
/// offsets.
@Suite("Two-pass warp lane weights")
struct LaneWeightTests {
    /// Sixteen lanes at `start + step·lane`, through the C kernel: each lane's
    /// largest difference from its kernel's weights placed at its taps
    /// (zero elsewhere), and the largest distance of a lane's weight sum
    /// from 1.
    static func differences(_ interpolation: Interpolation, start: Float, step: Float) throws -> (Double, Double) {
        let kernel = try #require(LaneWeightPolynomials.of(interpolation))
        let lanes = LanePass.lanes
        let offsets = (0..<lanes).map { start + step * Float($0) }
        let (first, w) = LanePass.weights(offsets: offsets, kernel: kernel)
        let lowest = offsets.map { Int($0.rounded(.down)) }.min()!
        #expect(first == lowest - 2, "the loads start 2 before the lowest lane's floor")
        var worst = 0.0, sumError = 0.0
        for lane in 0..<lanes {
            let s = offsets[lane], k = Int(s.rounded(.down)), f = s - Float(k)
            var exact = [Float](repeating: 0, count: 8)
            exact.withUnsafeMutableBufferPointer { interpolation.weights(f, into: $0.baseAddress!) }
            var sum = 0.0
            for t in 0..<LanePass.loads {
                // Load t reads index first + t; the kernel's tap i sits at k + firstTap + i.
                let i = first + t - k - interpolation.firstTap
                let expected = i >= 0 && i < interpolation.taps ? Double(exact[i]) : 0
                worst = max(worst, abs(Double(w[lanes * t + lane]) - expected))
                sum += Double(w[lanes * t + lane])
            }
            sumError = max(sumError, abs(sum - 1))
        }
        return (worst, sumError)
    }

    /// Lanczos-3: the fit (degree 3 in 8g² − 1, least largest error)
    /// leaves 3.7e-6 against the exact kernel; the bound 5e-6 adds the
    /// `Float` evaluation of both sides. The 4096-phase table the general warp uses is off by up to
    /// 1.7e-4, so the lanes are the closer of the two. Bilinear and cubic
    /// are low-degree polynomials: exact to rounding.
    @Test("each lane's weights are its kernel's at its exact offset, on the loads its taps fall on, summing to 1",
          arguments: [Interpolation.lanczos3, .bicubic, .bilinear])
    func matchesTheKernel(_ interpolation: Interpolation) throws {
        var worst = 0.0, sumError = 0.0
        // Lanes spanning under 2 px (over one or two integers: 7 or 8
        // loads), rising and falling, across integers
        // and negative offsets, and lanes on integers and just below them.
        var groups: [(start: Float, step: Float)] = [(0, 0), (2, 0), (-1, 0), (0.9999999, 0), (-0.0000001, 0), (0.5, 0),
                                                     (3.0, 0.124), (0.9999, 0.0000001)]
        for i in 0..<2000 {
            let start: Float = -3 + Float(i) * 0.00313
            groups.append((start, i % 2 == 0 ? 0.124 : -0.117))
        }
        for (start, step) in groups {
            let (w, s) = try Self.differences(interpolation, start: start, step: step)
            worst = max(worst, w)
            sumError = max(sumError, s)
        }
        let kernel = try #require(LaneWeightPolynomials.of(interpolation))
        print("LaneWeights \(interpolation): max difference \(worst) from the kernel, \(kernel.tableError) from its table; sum within \(sumError) of 1")
        #expect(worst <= 5e-6, "max difference \(worst)")
        #expect(sumError <= 1e-6, "weight sum off by \(sumError)")
        #expect(kernel.tableError <= 5e-6, "table difference \(kernel.tableError)")
    }

    @Test("a kernel the polynomial form cannot hold (.nearest, 1 tap) is refused")
    func refusesNearest() {
        #expect(LaneWeightPolynomials.of(.nearest) == nil)
        #expect(LaneWeightPolynomials(.nearest) == nil)
    }
}
