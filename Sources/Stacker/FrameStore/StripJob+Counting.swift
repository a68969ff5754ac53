extension StripJob {
    /// Levels counted per pixel by `reduceRowCounting`: the 256 of an 8-bit
    /// store and one more that takes the uncovered samples (read as 65535).
    static let countedLevels = 257

    /// Sigma-clip with equal weights past the sorting network, for an 8-bit
    /// store: 16 neighbouring pixels at a time, each pixel's covered
    /// samples counted per level in one pass over the frames, then clipped
    /// on the counts (`SigmaClip.clipCounts`). The bits are those of
    /// `reduceRowSelecting` and of the per-pixel kernel; the frames are read
    /// once instead of once per bisection pass.
    func reduceRowCounting(_ y: Int, _ s: StripScratch) {
        guard case .sigmaClip(let kl, let kh, let iterations) = kernel else {
            preconditionFailure("StripJob.reduceRowCounting: \(kernel) is not sigma-clip")
        }
        let n = store.frameCount, scale = UInt8.scale, v = s.lanes, h = s.levelCounts
        let stride = Self.countedLevels
        let trash = SIMD16<UInt16>(repeating: UInt16(stride - 1))
        var offsets = SIMD16<UInt16>()
        for l in 0..<16 { offsets[l] = UInt16(l * stride) }
        forEachSixteen(y, s, as: UInt8.self, warm: false) { count, lanes, out in
            var lowest = SIMD16<UInt16>(repeating: .max), highest = SIMD16<UInt16>(repeating: 0)
            for f in 0..<n {
                let x = v[f]
                // An uncovered sample (65535) lands in the extra level.
                let level = x.replacing(with: trash, where: x .> trash)
                lowest = lowest.replacing(with: level, where: level .< lowest)
                highest = highest.replacing(with: level, where: (level .> highest) .& (level .< trash))
                let at = offsets &+ level
                for l in 0..<16 { h[Int(at[l])] &+= 1 }
            }
            for l in 0..<16 {
                let counts = h + l * stride
                let k = Int(count[l])
                if l < lanes {
                    out[l] = k == 0 ? 0 : SigmaClip.clipCounts(
                        counts, lowest: Int(lowest[l]), highest: Int(highest[l]), total: k, scale: scale,
                        kappaLow: kl, kappaHigh: kh, maxIterations: iterations)
                }
                if k > 0 { (counts + Int(lowest[l])).update(repeating: 0, count: Int(highest[l] - lowest[l]) + 1) }
                counts[stride - 1] = 0
            }
        }
    }
}
