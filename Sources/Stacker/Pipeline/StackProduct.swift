/// What a pipeline run makes once the frames are registered: the public
/// entry points set it (`stack`, `register`, `stackPartialSums`).
enum StackProduct: Sendable, Equatable {
    /// The stacked image (`stack`).
    case image
    /// Only the per-frame records: frames are registered, never warped
    /// or combined (`register`).
    case records
    /// The average's unnormalised sums Σw·x and Σw (`stackPartialSums`).
    case partialSums
}
