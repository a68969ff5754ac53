extension StripJob {
    /// Median, or sigma-clip with equal weights, past the sorting network:
    /// 16 neighbouring pixels at once as stored integers (uncovered samples
    /// 65535, as in `reduceRowMedian`), the ranks they need found by
    /// `LaneSelection` instead of a sort. The median's output formula is
    /// `reduceRowMedian`'s and sigma-clip's is `SigmaClip.clipSorted`'s, so
    /// the bits are those of the per-pixel kernels for any frame count.
    func reduceRowSelecting<T: StoredSample>(_ y: Int, _ s: StripScratch, as _: T.Type) {
        let n = store.frameCount, scale = T.scale, v = s.lanes
        forEachSixteen(y, s, as: T.self, warm: false) { count, lanes, out in
            let value: SIMD16<Float>
            switch kernel {
            case .sigmaClip(let kl, let kh, let iterations):
                value = SigmaClip.clipSelectingLanes(
                    v, uncovered: s.orMask, rows: n, count: count, scale: scale, kappaLow: kl,
                    kappaHigh: kh, maxIterations: iterations, deviations: s.integerDeviations)
            case .median, .mode, .rejection, .mean, .tukeyMean:
                // Mode and the rejection family never come here (see `reduceRow`).
                let (lower, upper) = LaneSelection.middlePair(v, rows: n, count: count)
                value = 0.5 * (SIMD16<Float>(lower) * scale + SIMD16<Float>(upper) * scale)
            }
            if lanes == 16 {
                UnsafeMutableRawPointer(out).storeBytes(of: value, as: SIMD16<Float>.self)
            } else {
                for l in 0..<lanes { out[l] = value[l] }
            }
        }
    }
}
