public import Registration

/// The incremental weighted-average kernel: folds frames one at a time into a
/// running mean, so the burst is never held in memory.
///
/// Per pixel and channel, with frame weight `w` and coverage `c` (0…1):
/// `W += w·c;  mean += (w·c / W) · (x − mean)`. This is the classic running
/// average `avg = (avg·n + x)/(n + 1)` generalised to weights and coverage; it
/// never forms the large sum `Σ w·x`, so it stays accurate in `Float` over
/// hundreds of frames. Pixels a frame does not cover get no weight, so
/// borders of shifted frames do not darken.
public struct AverageAccumulator: Sendable {
    /// Width of the output grid.
    public let width: Int
    /// Height of the output grid.
    public let height: Int
    /// The running weighted mean, one plane per channel.
    public private(set) var mean: [Plane]
    /// The running sum of weights `Σ w·c` per pixel (shared by all channels).
    public private(set) var weightSum: Plane
    /// How many frames have been folded in.
    public private(set) var frameCount = 0

    /// An empty accumulator for `channels` planes of `width × height`.
    public init(width: Int, height: Int, channels: Int) {
        self.width = width
        self.height = height
        mean = Array(repeating: Plane(width: width, height: height), count: channels)
        weightSum = Plane(width: width, height: height)
    }

    /// Folds one aligned frame into the mean.
    /// - Parameters:
    ///   - planes: the frame on the output grid, one plane per channel.
    ///   - coverage: 0…1 per pixel, where the frame has data (nil: all covered).
    ///   - weight: the frame weight (> 0).
    public mutating func add(_ planes: [Plane], coverage: Plane?, weight: Float = 1) {
        precondition(planes.count == mean.count, "frame has \(planes.count) channels, accumulator \(mean.count)")
        precondition(weight.isFinite && weight > 0, "frame weight \(weight) must be positive")
        let n = width * height
        // Update the weight sum first, then fold each channel with the ratio
        // r = w·c / W (identical for all channels of a pixel).
        var ratio = [Float](repeating: 0, count: n)
        weightSum.pixels.withUnsafeMutableBufferPointer { wsum in
            ratio.withUnsafeMutableBufferPointer { r in
                if let coverage {
                    coverage.pixels.withUnsafeBufferPointer { c in
                        Self.updateWeights(wsum, r, coverage: c, weight: weight)
                    }
                } else {
                    Self.updateWeights(wsum, r, coverage: nil, weight: weight)
                }
            }
        }
        for ch in 0..<planes.count {
            mean[ch].pixels.withUnsafeMutableBufferPointer { m in
                planes[ch].pixels.withUnsafeBufferPointer { x in
                    ratio.withUnsafeBufferPointer { r in Self.fold(m, x, r) }
                }
            }
        }
        frameCount += 1
    }

    /// `W += w·c`, `r = w·c / W` (0 where W is still 0), 16 lanes at a time.
    private static func updateWeights(_ wsum: UnsafeMutableBufferPointer<Float>,
                                      _ r: UnsafeMutableBufferPointer<Float>,
                                      coverage: UnsafeBufferPointer<Float>?, weight: Float) {
        let n = wsum.count
        guard n > 0 else { return }
        let lanes = 16
        let vw = SIMD16<Float>(repeating: weight)
        var i = 0
        let wp = UnsafeMutableRawPointer(wsum.baseAddress!)
        let rp = UnsafeMutableRawPointer(r.baseAddress!)
        while i + lanes <= n {
            let c = coverage.map { SIMD16<Float>(UnsafeRawPointer($0.baseAddress! + i).loadUnaligned(as: SIMD16<Float>.self)) }
                ?? SIMD16<Float>(repeating: 1)
            let wc = vw * c
            let w = wp.loadUnaligned(fromByteOffset: i * 4, as: SIMD16<Float>.self) + wc
            wp.storeBytes(of: w, toByteOffset: i * 4, as: SIMD16<Float>.self)
            let safe = w.replacing(with: 1, where: w .<= 0)
            let q = (wc / safe).replacing(with: 0, where: w .<= 0)
            rp.storeBytes(of: q, toByteOffset: i * 4, as: SIMD16<Float>.self)
            i += lanes
        }
        while i < n {
            let wc = weight * (coverage?[i] ?? 1)
            wsum[i] += wc
            r[i] = wsum[i] > 0 ? wc / wsum[i] : 0
            i += 1
        }
    }

    /// `m += r · (x − m)`, 16 lanes at a time.
    private static func fold(_ m: UnsafeMutableBufferPointer<Float>, _ x: UnsafeBufferPointer<Float>,
                             _ r: UnsafeBufferPointer<Float>) {
        let n = m.count
        guard n > 0 else { return }
        let lanes = 16
        let mp = UnsafeMutableRawPointer(m.baseAddress!)
        let xp = UnsafeRawPointer(x.baseAddress!)
        let rp = UnsafeRawPointer(r.baseAddress!)
        var i = 0
        while i + lanes <= n {
            let off = i * 4
            let mv = mp.loadUnaligned(fromByteOffset: off, as: SIMD16<Float>.self)
            let xv = xp.loadUnaligned(fromByteOffset: off, as: SIMD16<Float>.self)
            let rv = rp.loadUnaligned(fromByteOffset: off, as: SIMD16<Float>.self)
            mp.storeBytes(of: mv + rv * (xv - mv), toByteOffset: off, as: SIMD16<Float>.self)
            i += lanes
        }
        while i < n {
            m[i] += r[i] * (x[i] - m[i])
            i += 1
        }
    }
}
