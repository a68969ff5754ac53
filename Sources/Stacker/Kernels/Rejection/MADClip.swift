/// MAD clipping, in one pass: σ = 1.4826 · b_n · MAD around the median (b_n
/// the small-sample factor of `SigmaClip`), and samples below `m − κlow·σ` or
/// above `m + κhigh·σ` rejected. One pass does not let a first rejection
/// narrow σ and reject good samples on few frames, as iterated clipping
/// may. Cost: the MAD by a merge over the sorted samples, O(n).
enum MADClip {
    static func apply(to s: inout SortedSamples, kappaLow: Float, kappaHigh: Float) {
        let m = s.median
        let sigma = SigmaClip.madToSigma * SigmaClip.smallSampleFactor(s.count) * s.medianAbsoluteDeviation
        s.keep(from: m - kappaLow * sigma, to: m + kappaHigh * sigma)
    }
}
