/// Percentile clipping, in one pass: a sample is rejected when it lies more
/// than `low` × |median| below the median or more than `high` × |median|
/// above it (the bounds are fractions of the median, as Siril's are; |·|
/// keeps them ordered for data below 0). Suits very few frames (3 to 6),
/// where no spread can be estimated. Cost: one pass over the sorted samples.
enum PercentileClip {
    /// Siril's defaults: 20 % below and 10 % above the median.
    static let defaultLow: Float = 0.2
    static let defaultHigh: Float = 0.1

    static func apply(to s: inout SortedSamples, low: Float, high: Float) {
        let m = s.median
        let scale = abs(m)
        s.keep(from: m - low * scale, to: m + high * scale)
    }
}
