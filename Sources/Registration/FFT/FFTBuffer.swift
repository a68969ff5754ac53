internal import CFFTW

/// An owned, SIMD-aligned block of `Float`s allocated with `fftwf_malloc`.
///
/// Real data is stored one `Float` per sample; complex data is interleaved
/// `(re, im)` pairs, so a complex buffer of `n` values holds `2 n` floats.
/// All buffers come from `fftwf_malloc`, so they share FFTW's alignment and
/// can be handed to any cached plan through the new-array execute functions.
///
/// The buffer is `@unchecked Sendable` because the registrar shares immutable
/// buffers (the reference spectra) between threads; a buffer that is written
/// must be owned by one thread at a time.
final class FFTBuffer: @unchecked Sendable {
    /// Number of `Float`s.
    let count: Int
    /// Start of the storage; valid for the lifetime of `self`.
    let pointer: UnsafeMutablePointer<Float>

    /// A zero-filled buffer of `count` floats, or nil when allocation fails.
    ///
    /// The corresponding C function is `fftwf_malloc`.
    init?(floats count: Int) {
        let bytes = max(1, count) * MemoryLayout<Float>.stride
        guard let raw = fftwf_malloc(bytes) else { return nil }
        self.count = count
        self.pointer = raw.bindMemory(to: Float.self, capacity: max(1, count))
        self.pointer.initialize(repeating: 0, count: max(1, count))
    }

    /// A buffer for `values` interleaved complex numbers.
    convenience init?(complex values: Int) { self.init(floats: 2 * values) }

    deinit { fftwf_free(pointer) }

    /// The storage as a buffer pointer (valid while `self` is alive).
    var buffer: UnsafeMutableBufferPointer<Float> { UnsafeMutableBufferPointer(start: pointer, count: count) }

    /// Copies `other` (same count) into `self`.
    func copy(from other: FFTBuffer) {
        assert(other.count == count)
        pointer.update(from: other.pointer, count: min(count, other.count))
    }

    /// Sets every float to zero.
    func zero() { pointer.update(repeating: 0, count: count) }
}
