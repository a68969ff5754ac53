internal import CFFTW
#if canImport(Glibc)
import Glibc
#endif

/// The one place that talks to FFTW: cached 2-D plans executed on caller
/// buffers through FFTW's new-array execute functions.
///
/// Planning is not thread-safe in FFTW, so every plan is made under
/// `planLock`; `fftwf_execute_dft*` is thread-safe, so a cached plan may run
/// concurrently on different buffers. Plans are made with `FFTW_ESTIMATE`,
/// which never touches the planning arrays. Buffers must come from
/// `FFTBuffer` (`fftwf_malloc`) so their alignment matches the plan's, and
/// must be out-of-place (input ≠ output), like the planning arrays.
private let planLock = PlanLock()
/// Cache of real 2-D plans keyed by size (guarded by `planLock`).
nonisolated(unsafe) private var realPlans: [FFTSize: RealFFT2D] = [:]
/// Cache of complex 2-D plans keyed by size (guarded by `planLock`).
nonisolated(unsafe) private var complexPlans: [FFTSize: ComplexFFT2D] = [:]

/// A 2-D transform size: `rows` × `cols` (row-major, `cols` fastest).
struct FFTSize: Hashable, Sendable {
    var rows: Int
    var cols: Int
}

/// Owned `fftwf_plan` handle, destroyed in `deinit`.
private final class PlanHandle: @unchecked Sendable {
    let plan: OpaquePointer
    init(_ plan: OpaquePointer) { self.plan = plan }
    deinit {
        planLock.lock()
        fftwf_destroy_plan(plan)
        planLock.unlock()
    }
}

/// Converts an interleaved-float pointer to FFTW's complex pointer type.
@inline(__always)
private func complexPointer(_ p: UnsafeMutablePointer<Float>) -> UnsafeMutablePointer<fftwf_complex> {
    UnsafeMutablePointer<fftwf_complex>(OpaquePointer(p))
}

/// Real-to-complex 2-D FFT of a `rows` × `cols` real array (row-major), and
/// its complex-to-real inverse.
///
/// Spectrum layout (FFTW's): `rows` × `(cols / 2 + 1)` interleaved complex
/// values; the other half follows from Hermitian symmetry. Transforms are
/// unnormalised: `inverse(forward(x)) = rows · cols · x`. The forward
/// transform has sign −1, the inverse +1.
final class RealFFT2D: Sendable {
    /// Transform size.
    let size: FFTSize
    /// Complex values per spectrum row: `cols / 2 + 1`.
    let spectrumCols: Int
    private let forwardPlan: PlanHandle
    private let inversePlan: PlanHandle

    /// Real floats in one input/output array.
    var realCount: Int { size.rows * size.cols }
    /// Floats (2 per complex value) in one spectrum.
    var spectrumFloats: Int { 2 * size.rows * spectrumCols }

    private init(size: FFTSize) throws {
        self.size = size
        self.spectrumCols = size.cols / 2 + 1
        guard let real = FFTBuffer(floats: size.rows * size.cols),
              let spec = FFTBuffer(complex: size.rows * (size.cols / 2 + 1)) else {
            throw RegistrationError.fftPlanFailed("Could not allocate FFT buffers for \(size.cols)×\(size.rows).")
        }
        let n0 = Int32(size.rows), n1 = Int32(size.cols)
        guard let f = fftwf_plan_dft_r2c_2d(n0, n1, real.pointer, complexPointer(spec.pointer), UInt32(FFTW_ESTIMATE)),
              let i = fftwf_plan_dft_c2r_2d(n0, n1, complexPointer(spec.pointer), real.pointer,
                                            UInt32(FFTW_ESTIMATE) | UInt32(FFTW_DESTROY_INPUT)) else {
            throw RegistrationError.fftPlanFailed("FFTW could not plan a \(size.cols)×\(size.rows) real transform.")
        }
        forwardPlan = PlanHandle(f)
        inversePlan = PlanHandle(i)
    }

    /// The shared plan pair for `rows` × `cols`, made on first use.
    static func shared(rows: Int, cols: Int) throws -> RealFFT2D {
        guard rows > 0, cols > 0, rows <= Int(Int32.max), cols <= Int(Int32.max) else {
            throw RegistrationError.fftPlanFailed("Invalid FFT size \(cols)×\(rows).")
        }
        let key = FFTSize(rows: rows, cols: cols)
        planLock.lock()
        if let p = realPlans[key] { planLock.unlock(); return p }
        planLock.unlock()
        // `init` takes the lock itself for planning; build outside to avoid
        // re-entrancy, then publish (a racing duplicate is simply dropped).
        let made = try RealFFT2D(lockedSize: key)
        planLock.lock(); defer { planLock.unlock() }
        if let p = realPlans[key] { return p }
        realPlans[key] = made
        return made
    }

    private convenience init(lockedSize key: FFTSize) throws {
        planLock.lock()
        defer { planLock.unlock() }
        try self.init(size: key)
    }

    /// A real input buffer of the right size (zeroed), or throws when out of memory.
    func makeRealBuffer() throws -> FFTBuffer {
        guard let b = FFTBuffer(floats: realCount) else {
            throw RegistrationError.numerical("Out of memory for a \(size.cols)×\(size.rows) FFT buffer.")
        }
        return b
    }

    /// A spectrum buffer of the right size (zeroed).
    func makeSpectrumBuffer() throws -> FFTBuffer {
        guard let b = FFTBuffer(floats: spectrumFloats) else {
            throw RegistrationError.numerical("Out of memory for a \(size.cols)×\(size.rows) FFT spectrum.")
        }
        return b
    }

    /// `output` ← DFT(`input`). `input` is preserved.
    ///
    /// The corresponding C function is `fftwf_execute_dft_r2c`.
    func forward(_ input: FFTBuffer, into output: FFTBuffer) {
        precondition(input.count >= realCount && output.count >= spectrumFloats, "FFT buffer too small")
        fftwf_execute_dft_r2c(forwardPlan.plan, input.pointer, complexPointer(output.pointer))
    }

    /// `output` ← unnormalised inverse DFT(`input`). **`input` is destroyed.**
    ///
    /// The corresponding C function is `fftwf_execute_dft_c2r`.
    func inverse(_ input: FFTBuffer, into output: FFTBuffer) {
        precondition(input.count >= spectrumFloats && output.count >= realCount, "FFT buffer too small")
        fftwf_execute_dft_c2r(inversePlan.plan, complexPointer(input.pointer), output.pointer)
    }
}

/// Complex 2-D FFT of a `rows` × `cols` interleaved complex array, forward
/// (sign −1) and inverse (sign +1), unnormalised, out-of-place.
final class ComplexFFT2D: Sendable {
    /// Transform size.
    let size: FFTSize
    private let forwardPlan: PlanHandle
    private let inversePlan: PlanHandle

    /// Floats (2 per complex value) in one array.
    var floatCount: Int { 2 * size.rows * size.cols }

    private init(size: FFTSize) throws {
        self.size = size
        guard let a = FFTBuffer(complex: size.rows * size.cols), let b = FFTBuffer(complex: size.rows * size.cols) else {
            throw RegistrationError.fftPlanFailed("Could not allocate FFT buffers for \(size.cols)×\(size.rows).")
        }
        let n0 = Int32(size.rows), n1 = Int32(size.cols)
        guard let f = fftwf_plan_dft_2d(n0, n1, complexPointer(a.pointer), complexPointer(b.pointer),
                                        FFTW_FORWARD, UInt32(FFTW_ESTIMATE)),
              let i = fftwf_plan_dft_2d(n0, n1, complexPointer(a.pointer), complexPointer(b.pointer),
                                        FFTW_BACKWARD, UInt32(FFTW_ESTIMATE)) else {
            throw RegistrationError.fftPlanFailed("FFTW could not plan a \(size.cols)×\(size.rows) complex transform.")
        }
        forwardPlan = PlanHandle(f)
        inversePlan = PlanHandle(i)
    }

    private convenience init(lockedSize key: FFTSize) throws {
        planLock.lock()
        defer { planLock.unlock() }
        try self.init(size: key)
    }

    /// The shared plan pair for `rows` × `cols`, made on first use.
    static func shared(rows: Int, cols: Int) throws -> ComplexFFT2D {
        guard rows > 0, cols > 0, rows <= Int(Int32.max), cols <= Int(Int32.max) else {
            throw RegistrationError.fftPlanFailed("Invalid FFT size \(cols)×\(rows).")
        }
        let key = FFTSize(rows: rows, cols: cols)
        planLock.lock()
        if let p = complexPlans[key] { planLock.unlock(); return p }
        planLock.unlock()
        let made = try ComplexFFT2D(lockedSize: key)
        planLock.lock(); defer { planLock.unlock() }
        if let p = complexPlans[key] { return p }
        complexPlans[key] = made
        return made
    }

    /// `output` ← DFT(`input`) (sign −1). `input` is preserved.
    ///
    /// The corresponding C function is `fftwf_execute_dft`.
    func forward(_ input: FFTBuffer, into output: FFTBuffer) {
        precondition(input.count >= floatCount && output.count >= floatCount, "FFT buffer too small")
        fftwf_execute_dft(forwardPlan.plan, complexPointer(input.pointer), complexPointer(output.pointer))
    }

    /// `output` ← unnormalised inverse DFT(`input`) (sign +1).
    ///
    /// The corresponding C function is `fftwf_execute_dft`.
    func inverse(_ input: FFTBuffer, into output: FFTBuffer) {
        precondition(input.count >= floatCount && output.count >= floatCount, "FFT buffer too small")
        fftwf_execute_dft(inversePlan.plan, complexPointer(input.pointer), complexPointer(output.pointer))
    }
}

/// A lock taken and released around the plan caches (pthread; Foundation's
/// `NSLock` is not linked, see `cFormat`).
private final class PlanLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
}
