/// What a rejection algorithm made of one pixel's samples.
public struct RejectionResult: Sendable, Equatable {
    /// Weighted mean Σwᵢxᵢ / Σwᵢ of the kept samples (their plain mean when
    /// the weights sum to 0; 0 when there were no samples).
    public var value: Float
    /// Number of samples kept.
    public var kept: Int
    /// Number rejected below the centre (over all passes).
    public var rejectedLow: Int
    /// Number rejected above the centre (over all passes).
    public var rejectedHigh: Int

    /// A result with the given fields.
    public init(value: Float, kept: Int, rejectedLow: Int, rejectedHigh: Int) {
        self.value = value
        self.kept = kept
        self.rejectedLow = rejectedLow
        self.rejectedHigh = rejectedHigh
    }
}
