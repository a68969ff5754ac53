/// One row of a plane split by column parity: `even` holds columns 0, 2,
/// 4, … and `odd` columns 1, 3, 5, …, so that a Bayer row's green sites
/// and its red or blue sites are each contiguous and a row kernel computes
/// only the sites a step needs (`RCDRowKernels`).
struct HalfRow {
    let even: UnsafeMutablePointer<Float>
    let odd: UnsafeMutablePointer<Float>

    /// The half holding the columns of parity `p`.
    func half(_ p: Int) -> UnsafeMutablePointer<Float> { p & 1 == 0 ? even : odd }

    /// For the sites of column parity `p` (column `2i + p` at index `i`), a
    /// pointer `t` with `t[i]` the sample `d` columns to the right of site `i`.
    func tap(_ p: Int, _ d: Int) -> UnsafeMutablePointer<Float> { half(p + d) + ((p + d) >> 1) }
}

/// Rows of `width` samples split by column parity (`HalfRow`), row `y` in
/// slot `y mod 16`: the working buffers of `RCDDebayer`, where each step
/// reads only the last few rows of the one before. Each half has
/// `HalfRowRing.pad` samples of slack on both sides, so a kernel may read
/// a few blocks past either end. The owner calls `deallocate`.
struct HalfRowRing {
    static let count = 16
    static let pad = 40
    let storage: UnsafeMutablePointer<Float>
    /// Samples from one half's start to the next's.
    let stride: Int

    init(width: Int, filledWith value: Float) {
        stride = (width + 1) / 2 + 2 * Self.pad
        storage = .allocate(capacity: Self.count * 2 * stride)
        storage.initialize(repeating: value, count: Self.count * 2 * stride)
    }

    /// Row `y`'s slot.
    func callAsFunction(_ y: Int) -> HalfRow {
        let even = storage + (y & (Self.count - 1)) * 2 * stride + Self.pad
        return HalfRow(even: even, odd: even + stride)
    }

    /// The slots of the rows in `range`, in order (`window[0]` is the first).
    func rows(_ range: ClosedRange<Int>) -> HalfRowWindow { HalfRowWindow(ring: self, first: range.lowerBound, step: 1) }

    /// Row `y`'s slot as every row of a window.
    func repeated(_ y: Int) -> HalfRowWindow { HalfRowWindow(ring: self, first: y, step: 0) }

    /// Sets every sample of row `y`'s slot to `value`.
    func fill(_ y: Int, with value: Float) {
        (storage + (y & (Self.count - 1)) * 2 * stride).update(repeating: value, count: 2 * stride)
    }

    func deallocate() { storage.deallocate() }
}

/// Rows `first`, `first + step`, … of a `HalfRowRing`, `window[k]` the
/// k-th: the rows a row kernel reads, handed over without building an
/// array per call.
struct HalfRowWindow {
    let ring: HalfRowRing
    let first: Int
    let step: Int

    subscript(k: Int) -> HalfRow { ring(first + step * k) }
}
