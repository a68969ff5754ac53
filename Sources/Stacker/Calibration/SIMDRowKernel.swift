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

    /// Calls `body` with the start of each block of `V.scalarCount`
    /// columns covering `lo..<hi` (which must be at least one block wide);
    /// the last block is moved back to end at `hi`, so a kernel must not
    /// read what it writes.
    @inline(__always)
    static func blocks<V: SIMD>(_: V.Type, _ lo: Int, _ hi: Int, _ body: (Int) -> Void) where V.Scalar == Float {
        let n = V.scalarCount
        var x = lo
        while x + n <= hi { body(x); x += n }
        if x < hi { body(hi - n) }
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
}
