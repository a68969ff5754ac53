/// Rank selection among non-negative floats (absolute residuals) without a
/// data-dependent branch: the robust scales of the tile aligner
/// (`TilePatch`) and of the homography refinement (`HomographyLevel`).
enum MagnitudeSelection {
    /// The value of rank `rank` (0-based) among `count` non-negative,
    /// finite floats at `values`, as a full sort would place it. Such
    /// floats order as their bit patterns do, so the value is found bit by
    /// bit, high to low: the largest pattern `t` with at most `rank` values
    /// below it, each count a pass of eight lanes (`b − t` wraps to a set
    /// top bit exactly where `b < t`). No branch depends on the data, where
    /// a partition (Hoare's selection) mispredicted about every other
    /// comparison.
    ///
    /// With `mantissaBits` below 23 only that many of the mantissa's bits
    /// are found (one pass each fewer): the result is the value of rank
    /// `rank` rounded down to `mantissaBits` bits, within a relative
    /// 2^−mantissaBits below it; a robust scale needs no more.
    static func select(_ values: UnsafePointer<Float>, count: Int, rank: Int, mantissaBits: Int = 23) -> Float {
        precondition(rank >= 0 && rank < count, "MagnitudeSelection.select: rank \(rank) of \(count)")
        typealias Bits = SIMD8<UInt32>
        let raw = UnsafeRawPointer(values)
        let whole = count / Bits.scalarCount * Bits.scalarCount
        @inline(__always) func below(_ t: UInt32) -> Int {
            var lanes = Bits()
            let splat = Bits(repeating: t)
            var k = 0
            while k < whole {
                lanes &+= (raw.loadUnaligned(fromByteOffset: 4 * k, as: Bits.self) &- splat) &>> 31
                k += Bits.scalarCount
            }
            var n = Int(lanes.wrappedSum())
            while k < count {
                n += Int((values[k].bitPattern &- t) >> 31)
                k += 1
            }
            return n
        }
        var result: UInt32 = 0
        for bit in stride(from: 30, through: 23 - min(23, max(0, mantissaBits)), by: -1) {
            let candidate = result | (1 << UInt32(bit))
            if below(candidate) <= rank { result = candidate }
        }
        return Float(bitPattern: result)
    }

    /// `select(values, count:, rank:)` exactly, for a rank near the top
    /// (few values above it, as a cell's strongest gradients): a bound just
    /// below the value is read off a strided sample of at most
    /// `sampleSize` values, the values at or above it gathered into
    /// `scratch`, and the value selected among those alone. The values at
    /// or above a bound are the top of the sorted order, so when they
    /// number at least `count − rank` the value of rank `rank` is theirs of
    /// rank `rank − (count − gathered)`; otherwise (a sample that missed)
    /// every value is searched. About three passes over the values where
    /// `select` makes one per bit.
    static func selectNearTop(_ values: UnsafePointer<Float>, count: Int, rank: Int,
                              scratch: inout [Float]) -> Float {
        precondition(rank >= 0 && rank < count, "MagnitudeSelection.selectNearTop: rank \(rank) of \(count)")
        let wanted = count - rank                           // values at or above the result
        guard count > 4 * sampleSize, wanted <= count / 64 else {
            return select(values, count: count, rank: rank)
        }
        let step = count / sampleSize
        scratch.removeAll(keepingCapacity: true)
        for k in 0..<sampleSize { scratch.append(values[k * step]) }
        // The sample's rank at which about 2 × `wanted` of all values lie above, less a margin.
        let above = min(sampleSize - 1, 2 * wanted * sampleSize / count + 8)
        let bound = scratch.withUnsafeBufferPointer {
            select($0.baseAddress!, count: sampleSize, rank: sampleSize - 1 - above)
        }
        scratch.removeAll(keepingCapacity: true)
        forEachIndex(of: values, count: count, atOrAbove: bound) { scratch.append(values[$0]) }
        guard scratch.count >= wanted else { return select(values, count: count, rank: rank) }
        return scratch.withUnsafeBufferPointer {
            select($0.baseAddress!, count: $0.count, rank: $0.count - wanted)
        }
    }

    /// Calls `body` with each index `i < count` where `values[i] ≥ bound`,
    /// ascending. Runs of 16 values below the bound (most of them when few
    /// reach it) are passed over at once.
    @inline(__always)
    static func forEachIndex(of values: UnsafePointer<Float>, count: Int, atOrAbove bound: Float,
                             _ body: (Int) -> Void) {
        var i = 0
        while i < count {
            if i + 16 <= count, !any(UnsafeRawPointer(values + i).loadUnaligned(as: SIMD16<Float>.self) .>= bound) {
                i += 16
                continue
            }
            if values[i] >= bound { body(i) }
            i += 1
        }
    }

    /// Values `selectNearTop` samples for its bound.
    static let sampleSize = 1024
}
