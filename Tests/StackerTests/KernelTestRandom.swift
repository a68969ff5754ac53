import Foundation

/// The one deterministic generator of the Stacker tests (SplitMix64), so
/// every test builds its data from a fixed seed.
struct KernelRNG: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    mutating func uniform() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// Uniform integer in `range`.
    mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// Standard normal (Box–Muller).
    mutating func gaussian() -> Double {
        let u1 = max(uniform(), 1e-300), u2 = uniform()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}

/// Mean and (population) standard deviation.
func kernelMeanStd(_ xs: [Double]) -> (mean: Double, std: Double) {
    let m = xs.reduce(0, +) / Double(xs.count)
    let v = xs.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(xs.count)
    return (m, v.squareRoot())
}


/// The I/O tests' name for the shared generator.
typealias SeededRandom = KernelRNG
/// The kernel and pipeline tests' name for the shared generator.
typealias TestNoise = KernelRNG
