import Foundation
import SceneGen

/// The tests' one seeded generator: SceneGen's `SplitMix64` (its `next()`
/// sequence for a seed), with the draws the tests need. Every test builds
/// its random data from a fixed seed through this type, so a run is
/// reproducible and a failure can be replayed.
public struct TestRandom: RandomNumberGenerator, Sendable {
    private var generator: SplitMix64

    /// A generator starting at `seed`.
    public init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 { generator.next() }

    /// Uniform in [0, 1) (53 random bits).
    public mutating func uniform() -> Double { generator.unit() }

    /// Uniform in [−a, a).
    public mutating func symmetric(_ a: Double) -> Double { (2 * uniform() - 1) * a }

    /// Uniform integer in `range` (modulo reduction: a bias below 2⁻⁴⁰ for
    /// the ranges tests use).
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// Standard normal, by Box–Muller (one normal per two uniforms).
    public mutating func gaussian() -> Double {
        let u1 = max(uniform(), 1e-300), u2 = uniform()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    /// SplitMix64's output function of `z`: a well-mixed 64-bit hash, for
    /// values defined at lattice points rather than drawn in sequence.
    public static func hash(_ z: UInt64) -> UInt64 {
        // The generator's first output for seed s is the mix of s + γ.
        var g = SplitMix64(seed: z &- 0x9E37_79B9_7F4A_7C15)
        return g.next()
    }
}
