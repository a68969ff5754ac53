/// A small, fast, deterministic pseudo-random generator (SplitMix64).
///
/// Every random decision of the scene generator comes from one of these,
/// seeded from the scene seed and a stream label, so a scene is a pure
/// function of its `SceneConfig` on every platform and thread count.
/// Not cryptographic.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The internal 64-bit state.
    public var state: UInt64

    /// A generator starting at `seed`.
    public init(seed: UInt64) { state = seed }

    /// A generator for an independent stream: the seed mixed with stream labels
    /// (e.g. frame and row indices), so nearby labels give unrelated streams.
    public init(seed: UInt64, stream a: UInt64, _ b: UInt64 = 0) {
        var s = SplitMix64(seed: seed ^ 0x6A09_E667_F3BC_C909)
        let x = s.next() ^ SplitMix64.mix(a &+ 0x9E37_79B9_7F4A_7C15)
        var t = SplitMix64(seed: x)
        state = t.next() ^ SplitMix64.mix(b &+ 0xBB67_AE85_84CA_A73B)
    }

    /// The SplitMix64 output finaliser.
    @inlinable static func mix(_ z0: UInt64) -> UInt64 {
        var z = z0
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The next 64 random bits.
    @inlinable public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SplitMix64.mix(state)
    }

    /// A uniform `Double` in `[0, 1)` (53 random bits).
    @inlinable public mutating func unit() -> Double {
        Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// A uniform `Double` in `[lo, hi)`.
    @inlinable public mutating func uniform(_ lo: Double, _ hi: Double) -> Double {
        lo + (hi - lo) * unit()
    }

    /// A uniform integer in `0..<n` (`n` ≥ 1; 0 when `n` ≤ 1).
    @inlinable public mutating func below(_ n: Int) -> Int {
        n <= 1 ? 0 : Int(next() % UInt64(n))
    }
}
