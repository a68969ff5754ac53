extension ModeCluster {
    /// The sample index of candidate `j` of `m` among `k` > `m` samples:
    /// ⌊(2j + 1)·k / 2m⌋, the middle of the j-th of m equal runs of the
    /// frame order, so movers that cover a run of frames take no more than
    /// their share of the candidates.
    @inline(__always)
    static func candidateIndex(_ j: Int, of m: Int, among k: Int) -> Int {
        (2 * j + 1) * k / (2 * m)
    }

    /// The mode of `k` > `m` samples with `m` candidate centres (see the
    /// type): each candidate's members counted over all k samples, 16 at a
    /// time; mask rows `0..<m` of the scratch hold the member sets of the
    /// candidates that reach the largest count, row j for candidate j.
    /// Same contract as `reduce`.
    static func reduceCandidates(samples s: UnsafePointer<Float>, count k: Int, channels c: Int,
                                 weights w: UnsafePointer<Float>, tolerance tau: Float, candidates m: Int,
                                 output: UnsafeMutablePointer<Float>, scratch: Scratch) -> Int {
        let n = (k + 63) / 64
        fillWideColumns(s, k, c, scratch)
        let counts = scratch.counts
        var best: Int32 = 0
        for j in 0..<m {
            let count = memberCount(of: candidateIndex(j, of: m, among: k), s, k, c, tau, scratch)
            counts[j] = count
            best = max(best, count)
        }
        var chosen = -1, ties = 0
        for j in 0..<m where counts[j] == best {
            memberMask(of: candidateIndex(j, of: m, among: k), s, k, c, tau,
                       into: scratch.masks + j * n, scratch)
            if chosen < 0 { chosen = j; ties = 1 }
            // Same member set → the same cluster, not a real tie.
            else if !scratch.sameMask(j, chosen, n) { ties += 1 }
        }
        if ties > 1 { chosen = breakTie(s, k, c, best, rows: m, scratch) }
        return clusterMean(row: chosen, s, k, c, w, output, scratch)
    }

    /// The samples transposed to channel-major 16-lane columns in
    /// `scratch.wideColumns`, padded with +∞ (never within τ).
    @inline(__always)
    static func fillWideColumns(_ s: UnsafePointer<Float>, _ k: Int, _ c: Int, _ scratch: Scratch) {
        let blocks = (k + 15) / 16
        let cols = scratch.wideColumns
        for ch in 0..<c {
            for q in 0..<blocks {
                var v = SIMD16<Float>(repeating: .infinity)
                for l in 0..<min(16, k - 16 * q) { v[l] = s[(16 * q + l) * c + ch] }
                cols[ch * blocks + q] = v
            }
        }
    }

    /// Whether each of the 16 samples of block `q` is within `tau` of
    /// sample `i` in every channel. The same arithmetic (difference, then
    /// ±τ) as the exact path's, so both see the same neighbours.
    @inline(__always)
    static func near(_ i: Int, block q: Int, blocks: Int, _ s: UnsafePointer<Float>, _ c: Int,
                     _ tau: Float, _ cols: UnsafePointer<SIMD16<Float>>) -> SIMDMask<SIMD16<Int32>> {
        let hi = SIMD16<Float>(repeating: tau), lo = SIMD16<Float>(repeating: -tau)
        var near = SIMDMask<SIMD16<Int32>>(repeating: true)
        for ch in 0..<c {
            let d = cols[ch * blocks + q] - SIMD16<Float>(repeating: s[i * c + ch])
            near = near .& (d .<= hi) .& (d .>= lo)
        }
        return near
    }

    /// How many of the k samples are within `tau` of sample `i` (itself included).
    @inline(__always)
    static func memberCount(of i: Int, _ s: UnsafePointer<Float>, _ k: Int, _ c: Int, _ tau: Float,
                            _ scratch: Scratch) -> Int32 {
        let blocks = (k + 15) / 16
        let cols = UnsafePointer(scratch.wideColumns)
        let one = SIMD16<Int32>(repeating: 1), zero = SIMD16<Int32>(repeating: 0)
        var total = zero
        for q in 0..<blocks {
            total &+= zero.replacing(with: one, where: near(i, block: q, blocks: blocks, s, c, tau, cols))
        }
        return total.wrappedSum()
    }

    /// Sample `i`'s members as a bit mask of ⌈k/64⌉ words at `mask` (bit j
    /// of word j / 64 set when sample j is within `tau`).
    static func memberMask(of i: Int, _ s: UnsafePointer<Float>, _ k: Int, _ c: Int, _ tau: Float,
                           into mask: UnsafeMutablePointer<UInt64>, _ scratch: Scratch) {
        let blocks = (k + 15) / 16
        let cols = UnsafePointer(scratch.wideColumns)
        var laneBits = SIMD16<UInt32>(repeating: 0)
        for l in 0..<16 { laneBits[l] = 1 << UInt32(l) }
        let zero = SIMD16<UInt32>(repeating: 0)
        for word in 0..<((k + 63) / 64) { mask[word] = 0 }
        for q in 0..<blocks {
            let bits = zero.replacing(with: laneBits, where: near(i, block: q, blocks: blocks, s, c, tau, cols))
                .wrappedSum()
            mask[q / 4] |= UInt64(bits) << UInt64(16 * (q % 4))
        }
    }
}

// References
// - D. Comaniciu and P. Meer, "Mean shift: a robust approach toward feature
//   space analysis", IEEE TPAMI 24(5), 2002 (flat-kernel density mode).
