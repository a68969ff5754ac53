/// An owned, SIMD-aligned block of `Float`s allocated by FFTW
/// (`FFTW.allocateFloats`): the module's one type that owns raw memory.
///
/// Real data is stored one `Float` per sample; complex data is interleaved
/// `(re, im)` pairs, so a complex buffer of `n` values holds `2 n` floats.
/// All buffers share FFTW's alignment, so any cached plan can run on them.
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
    init?(floats count: Int) {
        guard let pointer = FFTW.allocateFloats(count) else { return nil }
        self.count = count
        self.pointer = pointer
        self.pointer.initialize(repeating: 0, count: max(1, count))
    }

    /// A buffer for `values` interleaved complex numbers.
    convenience init?(complex values: Int) { self.init(floats: 2 * values) }

    deinit { FFTW.free(pointer) }

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
