internal import CStoreKernels

// The one file that imports `CStoreKernels`: the frame store's quantisation
// and its medians over pixels every frame covers, in C vector code (Swift's
// 32-byte SIMD types compare and select lane by lane, and a network whose
// comparators come from a list keeps its lanes in memory; see the shim).

/// The C kernels of the frame store, with the Swift code's bits.
enum StoreKernels {
    /// `round(clamp(v′, 0, 1) · 255)`, halves up and NaN → 0, of `count`
    /// floats from `source` into `destination`, where `v′ = gain · v +
    /// offset` with `normalising` and `v` without it; the product and the sum
    /// round separately, as `Normalization.apply` rounds them.
    @inline(__always)
    static func quantize(_ source: UnsafePointer<Float>, into destination: UnsafeMutablePointer<UInt8>, count: Int,
                         normalising k: (gain: Float, offset: Float)?) {
        store_quantize_u8(source, destination, count, k == nil ? 0 : 1, k?.gain ?? 1, k?.offset ?? 0)
    }

    /// The same into 16-bit samples (× 65535).
    @inline(__always)
    static func quantize(_ source: UnsafePointer<Float>, into destination: UnsafeMutablePointer<UInt16>, count: Int,
                         normalising k: (gain: Float, offset: Float)?) {
        store_quantize_u16(source, destination, count, k == nil ? 0 : 1, k?.gain ?? 1, k?.offset ?? 0)
    }

    /// Most frames `medianOfThirtyTwo` takes.
    static let medianFrames = Int(STORE_MEDIAN_MAX_FRAMES)

    /// The median of 32 neighbouring pixels that every one of `frames` (1 …
    /// `medianFrames`) frames covers, frame `f`'s 32 bytes at `base + f ·
    /// stride`: each pixel's samples sorted by Batcher's network (unrolled
    /// for the count, in registers), its median `0.5 · (lo · scale + hi ·
    /// scale)` of its two middle samples into `out[0..<32]`, as the 16-lane
    /// median computes it.
    @inline(__always)
    static func medianOfThirtyTwo(_ base: UnsafePointer<UInt8>, stride: Int, frames: Int, scale: Float,
                                  into out: UnsafeMutablePointer<Float>) {
        let done = store_median_bytes32(base, stride, frames, scale, out)
        precondition(done == 1, "StoreKernels.medianOfThirtyTwo: \(frames) frames")
    }

    /// The same for 16 neighbouring pixels of a 16-bit store (16 lanes of
    /// 16 bits to a vector), into `out[0..<16]`.
    @inline(__always)
    static func medianOfSixteen(_ base: UnsafePointer<UInt16>, stride: Int, frames: Int, scale: Float,
                                into out: UnsafeMutablePointer<Float>) {
        let done = store_median_halves16(base, stride, frames, scale, out)
        precondition(done == 1, "StoreKernels.medianOfSixteen: \(frames) frames")
    }
}
