/// The pointer access and lane selections shared by the debayers' row
/// kernels (`RCDRowKernels`, `AHDRowKernels`): a kernel type conforms and
/// calls these unqualified. Rows are pointers to their first pixel; a
/// kernel covers columns `lo..<hi` in blocks of `V.scalarCount` (`blocks`).
///
/// The selections are bit operations: the standard library's
/// `pointwiseMax`, `.<` and `replacing(with:where:)` compile to a branch or
/// call per lane, which made the kernels slower than scalar code.
protocol SIMDRowKernel {}

extension SIMDRowKernel {
    typealias Row = UnsafeMutablePointer<Float>

    @inline(__always)
    static func load<V: SIMD>(_ row: Row, _ x: Int) -> V where V.Scalar == Float {
        UnsafeRawPointer(row + x).loadUnaligned(as: V.self)
    }

    @inline(__always)
    static func store<V: SIMD>(_ v: V, _ row: Row, _ x: Int) where V.Scalar == Float {
        UnsafeMutableRawPointer(row + x).storeBytes(of: v, as: V.self)
    }

    /// Stores the lanes of `v` where `mask` is all ones, keeping the others (where it is 0).
    @inline(__always)
    static func store<V: SIMD>(_ v: V, _ row: Row, _ x: Int, where mask: V.MaskStorage) where V.Scalar == Float {
        let old: V = load(row, x)
        store(pick(v, where: mask, else: old), row, x)
    }

    @inline(__always)
    static func bits<V: SIMD>(_ v: V) -> V.MaskStorage where V.Scalar == Float { unsafeBitCast(v, to: V.MaskStorage.self) }

    @inline(__always)
    static func float<V: SIMD>(_ b: V.MaskStorage) -> V where V.Scalar == Float { unsafeBitCast(b, to: V.self) }

    /// Per lane, `a` where `mask` is all ones, else `b` (where it is 0).
    @inline(__always)
    static func pick<V: SIMD>(_ a: V, where mask: V.MaskStorage, else b: V) -> V where V.Scalar == Float {
        float((bits(a) & mask) | (bits(b) & ~mask))
    }

    /// Per lane, `a` where `d` has its sign bit set, else `b`. For finite
    /// `x`, `y`, `x − y` is negative exactly when `x < y`.
    @inline(__always)
    static func select<V: SIMD>(_ a: V, ifNegative d: V, else b: V) -> V where V.Scalar == Float {
        pick(a, where: bits(d) &>> 31, else: b)
    }

    /// |v| per lane (the sign bit cleared).
    @inline(__always)
    static func mag<V: SIMD>(_ v: V) -> V where V.Scalar == Float { float(bits(v) & V.MaskStorage(repeating: .max)) }

    /// `max(floor, v)` per lane, as `Swift.max` picks for finite values.
    @inline(__always)
    static func atLeast<V: SIMD>(_ floor: V, _ v: V) -> V where V.Scalar == Float { select(floor, ifNegative: v - floor, else: v) }

    /// `min(ceiling, v)` per lane, for finite values.
    @inline(__always)
    static func atMost<V: SIMD>(_ ceiling: V, _ v: V) -> V where V.Scalar == Float { select(v, ifNegative: v - ceiling, else: ceiling) }

    /// The start of each block of `V.scalarCount` columns covering
    /// `lo..<hi` (which must be at least one block wide), the last block
    /// moved back to end at `hi`, so a kernel must not read what it writes.
    /// A kernel loops over these itself (`for x in blockStarts(…)`): a
    /// closure called per block was kept out of line by the compiler, a
    /// call and a reload of every row pointer per block.
    @inline(__always)
    static func blockStarts<V: SIMD>(_: V.Type, _ lo: Int, _ hi: Int) -> BlockStarts where V.Scalar == Float {
        BlockStarts(from: lo, to: hi, by: V.scalarCount, last: hi - V.scalarCount)
    }

    /// Lane masks (all ones or 0) for blocks starting at an even (`.0`)
    /// and odd (`.1`) column: all ones in the lanes whose column has parity `parity`.
    static func parityMasks<V: SIMD>(_: V.Type, parity: Int) -> (V.MaskStorage, V.MaskStorage) where V.Scalar == Float {
        var even = V.MaskStorage(), odd = V.MaskStorage()
        for k in 0..<V.scalarCount {
            even[k] = (k & 1) == parity ? -1 : 0
            odd[k] = ((k + 1) & 1) == parity ? -1 : 0
        }
        return (even, odd)
    }

    // MARK: rows split by column parity (`HalfRow`)

    /// The start index of each block of `V.scalarCount` sites of column
    /// parity `p` (site `i` is column `2i + p`) covering the columns
    /// `lo..<hi`, the last block moved back to end at the last site (so a
    /// kernel must not read what it writes), and `keep` nil; or, when there
    /// are fewer sites than lanes, the first site alone and `keep` the mask
    /// of the lanes that are sites (`put` stores only those; the others
    /// read past the range, into `HalfRowRing`'s slack).
    @inline(__always)
    static func halfBlocks<V: SIMD>(_: V.Type, parity p: Int, _ lo: Int, _ hi: Int)
        -> (starts: BlockStarts, keep: V.MaskStorage?) where V.Scalar == Float {
        let n = V.scalarCount
        let first = (lo - p + 1) >> 1, end = (hi - p + 1) >> 1
        var keep: V.MaskStorage? = nil
        if end - first < n {
            var lanes = V.MaskStorage()
            for k in 0..<max(0, min(end - first, n)) { lanes[k] = -1 }
            keep = lanes
        }
        let last = keep == nil ? end - n : first
        return (BlockStarts(from: first, to: end, by: n, last: last), keep)
    }

    /// Stores `v` at `row + i`, or with `keep` only its lanes where `keep` is all ones.
    @inline(__always)
    static func put<V: SIMD>(_ v: V, _ row: Row, _ i: Int, _ keep: V.MaskStorage?) where V.Scalar == Float {
        if let keep { store(v, row, i, where: keep) } else { store(v, row, i) }
    }

    /// Splits the `count` samples from `src` by column parity into `out`
    /// (`max(s, 0)` of each with `clampingAtZero`, as a select that vectorises).
    static func deinterleave(_ src: UnsafePointer<Float>, count: Int, into out: HalfRow, clampingAtZero clamp: Bool) {
        let pairs = count >> 1, even = out.even, odd = out.odd
        if clamp {
            for i in 0..<pairs {
                let a = src[2 * i], b = src[2 * i + 1]
                even[i] = a <= 0 ? 0 : a
                odd[i] = b <= 0 ? 0 : b
            }
            if count & 1 == 1 { let a = src[count - 1]; even[pairs] = a <= 0 ? 0 : a }
        } else {
            for i in 0..<pairs {
                even[i] = src[2 * i]
                odd[i] = src[2 * i + 1]
            }
            if count & 1 == 1 { even[pairs] = src[count - 1] }
        }
    }

    /// Writes the columns `2i ..< 2i + 2 · V.scalarCount` of a row split by
    /// parity, given its sites `i ..< i + V.scalarCount` of each parity
    /// (`even`, `odd`), into the same columns of `out`: `interleave` for
    /// one block, inside a kernel's loop.
    @inline(__always)
    static func joinBlock<V: SIMD>(_: V.Type, even: V, odd: V, _ i: Int, into out: Row) where V.Scalar == Float {
        let n = V.scalarCount, half = n / 2
        var first = V(), second = V()
        for k in 0..<half {
            first[2 * k] = even[k]
            first[2 * k + 1] = odd[k]
            second[2 * k] = even[half + k]
            second[2 * k + 1] = odd[half + k]
        }
        store(first, out, 2 * i)
        store(second, out, 2 * i + n)
    }

    /// Writes the columns `lo..<hi` of `row`, split by parity, into `out`'s columns `lo..<hi` (none if `hi ≤ lo`).
    static func interleave(_ row: HalfRow, into out: Row, lo: Int, hi: Int) {
        guard lo < hi else { return }
        var x = lo
        if x & 1 == 1 && x < hi { out[x] = row.odd[x >> 1]; x += 1 }
        let pairs = (hi - x) >> 1, start = x >> 1
        let even = row.even + start, odd = row.odd + start, o = out + x
        for k in 0..<pairs {
            o[2 * k] = even[k]
            o[2 * k + 1] = odd[k]
        }
        if x + 2 * pairs < hi { out[hi - 1] = row.even[(hi - 1) >> 1] }
    }

    /// Copies the columns `lo..<hi` of `row` into the same columns of `out` (split by parity).
    static func scatterColumns(_ row: UnsafePointer<Float>, into out: HalfRow, lo: Int, hi: Int) {
        for x in lo..<hi { out.half(x)[x >> 1] = row[x] }
    }
}

/// The starts `from, from + step, …` below `end`, each capped at `last`:
/// the blocks of a row kernel (`SIMDRowKernel.blockStarts`, `halfBlocks`).
/// A concrete iterator, because the standard library's lazy map over a
/// stride was called out of line once per block.
struct BlockStarts: Sequence, IteratorProtocol {
    private var start: Int
    private let end: Int, step: Int, last: Int

    @inline(__always)
    init(from start: Int, to end: Int, by step: Int, last: Int) {
        self.start = start
        self.end = end
        self.step = step
        self.last = last
    }

    @inline(__always)
    mutating func next() -> Int? {
        guard start < end else { return nil }
        defer { start += step }
        return Swift.min(start, last)
    }
}
