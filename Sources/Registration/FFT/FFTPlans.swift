import Synchronization

/// Cached 2-D FFT plans, one pair (forward and inverse) per size and kind,
/// made on first use and kept for the process. The FFTW calls themselves are
/// in `FFTW`: planning there is serialised, executing is not, so a cached
/// plan may run concurrently on different buffers. Buffers must come from
/// `FFTBuffer` (FFTW's alignment) and be out of place (input ≠ output).
///
/// Each cache has a lock of its own, never held while planning: a racing
/// duplicate is made, found second, and dropped.
private let realPlans = Mutex<[FFTSize: RealFFT2D]>([:])
private let complexPlans = Mutex<[FFTSize: ComplexFFT2D]>([:])

/// A 2-D transform size: `rows` × `cols` (row-major, `cols` fastest).
struct FFTSize: Hashable, Sendable {
    var rows: Int
    var cols: Int
}

/// The plans cached in `cache` for `rows` × `cols`, made by `make` (outside
/// the lock) on first use; throws for a size FFTW cannot take.
private func cachedPlans<Plans: Sendable>(in cache: borrowing Mutex<[FFTSize: Plans]>, rows: Int, cols: Int,
                                          make: (FFTSize) throws -> Plans) throws -> Plans {
    guard rows > 0, cols > 0, rows <= Int(Int32.max), cols <= Int(Int32.max) else {
        throw RegistrationError.fftPlanFailed("Invalid FFT size \(cols)×\(rows).")
    }
    let key = FFTSize(rows: rows, cols: cols)
    if let plans = cache.withLock({ $0[key] }) { return plans }
    let made = try make(key)
    return cache.withLock { plans in
        if let shared = plans[key] { return shared }
        plans[key] = made
        return made
    }
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
    private let forwardPlan: FFTW.Plan
    private let inversePlan: FFTW.Plan

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
        guard let f = FFTW.plan(.realForward, rows: size.rows, cols: size.cols, input: real.pointer, output: spec.pointer),
              let i = FFTW.plan(.realInverse, rows: size.rows, cols: size.cols, input: spec.pointer, output: real.pointer) else {
            throw RegistrationError.fftPlanFailed("FFTW could not plan a \(size.cols)×\(size.rows) real transform.")
        }
        forwardPlan = f
        inversePlan = i
    }

    /// The shared plan pair for `rows` × `cols`, made on first use.
    static func shared(rows: Int, cols: Int) throws -> RealFFT2D {
        try cachedPlans(in: realPlans, rows: rows, cols: cols) { try RealFFT2D(size: $0) }
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
    func forward(_ input: FFTBuffer, into output: FFTBuffer) {
        precondition(input.count >= realCount && output.count >= spectrumFloats, "FFT buffer too small")
        forwardPlan.execute(input.pointer, into: output.pointer)
    }

    /// `output` ← unnormalised inverse DFT(`input`). **`input` is destroyed.**
    func inverse(_ input: FFTBuffer, into output: FFTBuffer) {
        precondition(input.count >= spectrumFloats && output.count >= realCount, "FFT buffer too small")
        inversePlan.execute(input.pointer, into: output.pointer)
    }
}

/// Complex 2-D FFT of a `rows` × `cols` interleaved complex array, forward
/// (sign −1) and inverse (sign +1), unnormalised, out-of-place.
final class ComplexFFT2D: Sendable {
    /// Transform size.
    let size: FFTSize
    private let forwardPlan: FFTW.Plan
    private let inversePlan: FFTW.Plan

    /// Floats (2 per complex value) in one array.
    var floatCount: Int { 2 * size.rows * size.cols }

    private init(size: FFTSize) throws {
        self.size = size
        guard let a = FFTBuffer(complex: size.rows * size.cols), let b = FFTBuffer(complex: size.rows * size.cols) else {
            throw RegistrationError.fftPlanFailed("Could not allocate FFT buffers for \(size.cols)×\(size.rows).")
        }
        guard let f = FFTW.plan(.complexForward, rows: size.rows, cols: size.cols, input: a.pointer, output: b.pointer),
              let i = FFTW.plan(.complexInverse, rows: size.rows, cols: size.cols, input: a.pointer, output: b.pointer) else {
            throw RegistrationError.fftPlanFailed("FFTW could not plan a \(size.cols)×\(size.rows) complex transform.")
        }
        forwardPlan = f
        inversePlan = i
    }

    /// The shared plan pair for `rows` × `cols`, made on first use.
    static func shared(rows: Int, cols: Int) throws -> ComplexFFT2D {
        try cachedPlans(in: complexPlans, rows: rows, cols: cols) { try ComplexFFT2D(size: $0) }
    }

    /// `output` ← DFT(`input`) (sign −1). `input` is preserved.
    func forward(_ input: FFTBuffer, into output: FFTBuffer) {
        precondition(input.count >= floatCount && output.count >= floatCount, "FFT buffer too small")
        forwardPlan.execute(input.pointer, into: output.pointer)
    }

    /// `output` ← unnormalised inverse DFT(`input`) (sign +1).
    func inverse(_ input: FFTBuffer, into output: FFTBuffer) {
        precondition(input.count >= floatCount && output.count >= floatCount, "FFT buffer too small")
        inversePlan.execute(input.pointer, into: output.pointer)
    }
}
