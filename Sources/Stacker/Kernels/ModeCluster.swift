/// The mode of one pixel's samples: the densest cluster of colours.
///
/// Two samples are neighbours when every channel differs by at most the
/// tolerance τ (Chebyshev distance on the 0…1 scale; all channels together,
/// so an object's colour forms one cluster even where its luma matches the
/// background). A candidate's cluster is itself plus its neighbours among
/// all k samples; the densest cluster is the candidate cluster with the
/// most members. Ties between different clusters go to the one whose
/// (unweighted) mean is closest, in Chebyshev distance, to the per-channel
/// median of all samples; remaining ties to the lowest sample index. The
/// output is the weighted mean of the chosen cluster's members (plain mean
/// if their weights sum to 0).
///
/// Candidates: for k ≤ `candidateLimit` (M) every sample is a candidate,
/// the exact densest cluster. Past M, only M samples are candidates, one
/// from the middle of each of M equal runs of the frame order
/// (`candidateIndex`); their members are still counted over all k samples
/// and the output is still the mean of all members. The chosen cluster can
/// then be smaller than the exact one by the few members at its rim
/// (its centre is one of M samples, not the best of k), and can be another
/// cluster only when two clusters are within those few members of each
/// other in size, or when no candidate falls in the largest one (a run of
/// ⌈k/M⌉ consecutive frames always holds one; a cluster scattered over the
/// frames holds about its share of the M, so one of a few samples can be
/// missed); the `mode-candidates` bench case measures both against the
/// exact definition.
///
/// This removes moving objects even where objects cover most of the frames,
/// as long as the background is the single largest cluster and the objects'
/// colours differ from it by more than τ.
///
/// Cost: O(min(k, M) · k · channels) per pixel for k samples, so the cost
/// per frame grows with k up to M and is flat past it. Members are tested
/// 8 (exact) or 16 (candidates) samples per SIMD step.
///
/// Tolerance: `defaultTolerance` (0.06) suits 8-bit photographs with typical
/// sensor/JPEG noise (σ ≈ 0.014); `tolerance(forNoiseSigma:)` derives it from
/// a measured noise sigma.
public enum ModeCluster {
    /// Default cluster tolerance on the 0…1 scale (≈ 15 levels of 255).
    public static let defaultTolerance: Float = 0.06

    /// Most candidate centres per pixel (M): up to this many samples every
    /// sample is a candidate (the exact mode); past it, M samples spread
    /// over the frame order are.
    public static let candidateLimit = 24

    /// A tolerance for samples with per-channel noise `sigma` (0…1 scale):
    /// 3·√2·σ, the 3-sigma width of the difference of two samples, clamped
    /// to 0.02…0.15 so quantisation and heavy noise stay usable.
    public static func tolerance(forNoiseSigma sigma: Double) -> Float {
        guard sigma.isFinite, sigma > 0 else { return defaultTolerance }
        return Float(min(max(3 * 2.0.squareRoot() * sigma, 0.02), 0.15))
    }

    /// The mode of single-channel `values` (0…1), with optional weights;
    /// `candidateLimit` as in the multi-channel form.
    public static func mode(_ values: [Float], weights: [Float]? = nil,
                            tolerance: Float = defaultTolerance,
                            candidateLimit: Int = candidateLimit) -> Float {
        mode(values.map { [$0] }, weights: weights, tolerance: tolerance,
             candidateLimit: candidateLimit).first ?? 0
    }

    /// The mode of multi-channel samples: `samples[i]` is sample i's colour
    /// (all the same channel count). Returns one value per channel (empty
    /// input: an empty array). `candidateLimit` (≥ 1) is M of the type's
    /// definition; `Int.max` gives the exact mode at any sample count.
    public static func mode(_ samples: [[Float]], weights: [Float]? = nil,
                            tolerance: Float = defaultTolerance,
                            candidateLimit: Int = candidateLimit) -> [Float] {
        precondition(candidateLimit >= 1, "ModeCluster: candidateLimit \(candidateLimit) < 1")
        guard let channels = samples.first?.count, channels > 0 else { return [] }
        precondition(samples.allSatisfy { $0.count == channels },
                     "ModeCluster: samples have differing channel counts")
        let flat = samples.flatMap { $0 }
        let w = weights ?? [Float](repeating: 1, count: samples.count)
        precondition(w.count == samples.count,
                     "ModeCluster: \(w.count) weights for \(samples.count) samples")
        let scratch = Scratch(capacity: samples.count, channels: channels)
        var out = [Float](repeating: 0, count: channels)
        flat.withUnsafeBufferPointer { fb in
            w.withUnsafeBufferPointer { wb in
                out.withUnsafeMutableBufferPointer { ob in
                    guard let f = fb.baseAddress, let wp = wb.baseAddress,
                          let o = ob.baseAddress else { return }
                    _ = reduce(samples: f, count: samples.count, channels: channels,
                               weights: wp, tolerance: tolerance, output: o, scratch: scratch,
                               candidateLimit: candidateLimit)
                }
            }
        }
        return out
    }

    /// Working memory for `reduce`, allocated once and reused per pixel.
    final class Scratch {
        /// Most samples per pixel.
        let capacity: Int
        /// Most channels.
        let channels: Int
        let counts: UnsafeMutablePointer<Int32>
        /// Neighbour masks: for a pixel of k samples, ⌈k/64⌉ words per
        /// sample (sample i's at `i · ⌈k/64⌉`); room for `capacity` samples.
        let masks: UnsafeMutablePointer<UInt64>
        let floats: UnsafeMutablePointer<Float>
        let medians: UnsafeMutablePointer<Float>
        let means: UnsafeMutablePointer<Float>
        let sums: UnsafeMutablePointer<Double>
        /// Channel-major SIMD copy of the samples (channels × ⌈capacity/8⌉).
        let columns: UnsafeMutablePointer<SIMD8<Float>>
        /// The same in 16 lanes for the candidates path (channels × ⌈capacity/16⌉).
        let wideColumns: UnsafeMutablePointer<SIMD16<Float>>

        init(capacity: Int, channels: Int) {
            self.capacity = max(capacity, 1)
            self.channels = max(channels, 1)
            counts = .allocate(capacity: self.capacity)
            masks = .allocate(capacity: self.capacity * ((self.capacity + 63) / 64))
            floats = .allocate(capacity: self.capacity)
            medians = .allocate(capacity: self.channels)
            means = .allocate(capacity: self.channels)
            sums = .allocate(capacity: 2 * self.channels)
            columns = .allocate(capacity: self.channels * ((self.capacity + 7) / 8))
            wideColumns = .allocate(capacity: self.channels * ((self.capacity + 15) / 16))
        }

        deinit {
            counts.deallocate(); masks.deallocate(); floats.deallocate()
            medians.deallocate(); means.deallocate(); sums.deallocate(); columns.deallocate()
            wideColumns.deallocate()
        }

        /// Whether samples `i` and `j` have the same neighbour set (`n` words).
        @inline(__always)
        func sameMask(_ i: Int, _ j: Int, _ n: Int) -> Bool {
            let a = masks + i * n, b = masks + j * n
            for q in 0..<n where a[q] != b[q] { return false }
            return true
        }
    }

    /// The mode of `k` samples stored sample-major in `samples[0..<k*channels]`,
    /// written to `output[0..<channels]`, with at most `candidateLimit`
    /// candidate centres (see the type). The scratch must hold ≥ k samples
    /// of ≥ `channels` channels.
    /// - Returns: the number of members of the chosen cluster (0 when k = 0,
    ///   in which case the output is 0).
    static func reduce(samples s: UnsafePointer<Float>, count k: Int, channels c: Int,
                       weights w: UnsafePointer<Float>, tolerance tau: Float,
                       output: UnsafeMutablePointer<Float>, scratch: Scratch,
                       candidateLimit: Int = candidateLimit) -> Int {
        guard k > 0 else {
            for ch in 0..<c { output[ch] = 0 }
            return 0
        }
        precondition(k <= scratch.capacity && c <= scratch.channels,
                     "ModeCluster scratch holds \(scratch.capacity)×\(scratch.channels), need \(k)×\(c)")
        if k > candidateLimit {
            return reduceCandidates(samples: s, count: k, channels: c, weights: w, tolerance: tau,
                                    candidates: candidateLimit, output: output, scratch: scratch)
        }
        let counts = scratch.counts
        let n = (k + 63) / 64
        neighbourMasks(s, k, c, tau, scratch)
        var best: Int32 = 0, chosen = 0, ties = 0
        for i in 0..<k {
            if counts[i] > best { best = counts[i]; chosen = i; ties = 1 }
            else if counts[i] == best {
                // Same member set → the same cluster, not a real tie.
                if !scratch.sameMask(i, chosen, n) { ties += 1 }
            }
        }
        if ties > 1 { chosen = breakTie(s, k, c, best, rows: k, scratch) }
        return clusterMean(row: chosen, s, k, c, w, output, scratch)
    }

    /// The weighted mean of the members in mask row `row` (Double sums, in
    /// index order: the set bits of its mask) written to `output`; the plain
    /// mean when their weights sum to 0.
    /// - Returns: the number of members.
    static func clusterMean(row: Int, _ s: UnsafePointer<Float>, _ k: Int, _ c: Int,
                            _ w: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>,
                            _ scratch: Scratch) -> Int {
        let n = (k + 63) / 64
        let sums = scratch.sums, plain = scratch.sums + c
        for ch in 0..<(2 * c) { sums[ch] = 0 }
        var members = 0
        var sumW = 0.0
        let mask = scratch.masks + row * n
        for q in 0..<n {
            var bits = mask[q]
            while bits != 0 {
                let j = 64 * q + bits.trailingZeroBitCount
                bits &= bits - 1
                let sj = s + j * c
                let wj = Double(w[j])
                members += 1
                sumW += wj
                for ch in 0..<c {
                    sums[ch] += wj * Double(sj[ch])
                    plain[ch] += Double(sj[ch])
                }
            }
        }
        for ch in 0..<c {
            output[ch] = Float(sumW > 0 ? sums[ch] / sumW : plain[ch] / Double(members))
        }
        return members
    }

    /// Neighbour bit masks and counts: bit j of sample i's mask (word
    /// j / 64 of its ⌈k/64⌉) is set when sample j is within `tau` of sample
    /// i (i itself included). The samples are transposed to channel-major
    /// SIMD lanes (padding +∞, never near) so each sample is tested against
    /// 8 others at once, whatever k: k²/8 vector compares per channel.
    @inline(__always)
    static func neighbourMasks(_ s: UnsafePointer<Float>, _ k: Int, _ c: Int, _ tau: Float,
                               _ scratch: Scratch) {
        let chunks = (k + 7) / 8
        let n = (k + 63) / 64
        let cols = scratch.columns
        for ch in 0..<c {
            for q in 0..<chunks {
                var v = SIMD8<Float>(repeating: .infinity)
                for l in 0..<8 where q * 8 + l < k { v[l] = s[(q * 8 + l) * c + ch] }
                cols[ch * chunks + q] = v
            }
        }
        let laneBits = SIMD8<UInt32>(1, 2, 4, 8, 16, 32, 64, 128)
        let zero = SIMD8<UInt32>(repeating: 0)
        let hi = SIMD8<Float>(repeating: tau), lo = SIMD8<Float>(repeating: -tau)
        for i in 0..<k {
            let mask = scratch.masks + i * n
            var count = 0
            for word in 0..<n {
                var bitsOfWord: UInt64 = 0
                for q in (8 * word)..<min(8 * word + 8, chunks) {
                    var near = SIMDMask<SIMD8<Int32>>(repeating: true)
                    for ch in 0..<c {
                        let d = cols[ch * chunks + q] - SIMD8<Float>(repeating: s[i * c + ch])
                        near = near .& (d .<= hi) .& (d .>= lo)
                    }
                    let bits = zero.replacing(with: laneBits, where: near).wrappedSum()
                    bitsOfWord |= UInt64(bits) << UInt64(8 * (q - 8 * word))
                }
                mask[word] = bitsOfWord
                count += bitsOfWord.nonzeroBitCount
            }
            scratch.counts[i] = Int32(count)
        }
    }

    /// Among the mask rows `0..<rows` whose cluster has `best` members (their
    /// count in `scratch.counts`), the one whose cluster mean is closest
    /// (Chebyshev) to the per-channel median of all k samples; the lowest
    /// row on equal distances.
    static func breakTie(_ s: UnsafePointer<Float>, _ k: Int, _ c: Int,
                         _ best: Int32, rows: Int, _ scratch: Scratch) -> Int {
        let medians = scratch.medians, means = scratch.means
        for ch in 0..<c {
            for i in 0..<k { scratch.floats[i] = s[i * c + ch] }
            medians[ch] = Median.inPlace(UnsafeMutableBufferPointer(start: scratch.floats, count: k))
        }
        let n = (k + 63) / 64
        var chosen = -1
        var chosenDistance = Float.infinity
        for i in 0..<rows where scratch.counts[i] == best {
            if chosen >= 0 && scratch.sameMask(i, chosen, n) { continue }
            for ch in 0..<c { means[ch] = 0 }
            var members: Float = 0
            let mask = scratch.masks + i * n
            for q in 0..<n {
                var bits = mask[q]
                while bits != 0 {
                    let j = 64 * q + bits.trailingZeroBitCount
                    bits &= bits - 1
                    for ch in 0..<c { means[ch] += s[j * c + ch] }
                    members += 1
                }
            }
            var distance: Float = 0
            for ch in 0..<c { distance = max(distance, abs(means[ch] / members - medians[ch])) }
            if distance < chosenDistance { chosenDistance = distance; chosen = i }
        }
        return max(chosen, 0)
    }
}

// References
// - D. Comaniciu and P. Meer, "Mean shift: a robust approach toward feature
//   space analysis", IEEE TPAMI 24(5), 2002 (flat-kernel density mode).
// - Siril documentation, stacking methods (median, rejection):
//   https://siril.readthedocs.io/en/stable/preprocessing/stacking.html
