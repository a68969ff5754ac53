internal import CFFTW
import Synchronization

/// The one file that imports FFTW (single precision, `fftwf_*`). Each C call
/// the module makes is wrapped here once, and no FFTW type leaves the file:
/// memory is `Float`s, complex data interleaved `(re, im)` pairs, and a plan
/// is an `FFTW.Plan` that destroys itself.
///
/// Thread safety follows FFTW's: making and destroying plans is not
/// thread-safe, so both run under one process-wide lock here; executing a
/// plan is, so one plan may run on several threads at once on different
/// arrays. Plans are made with `FFTW_ESTIMATE`, which never reads or writes
/// the arrays given when planning, and are executed on new arrays through
/// FFTW's new-array functions, so those arrays must be allocated here
/// (`allocateFloats`, FFTW's alignment) and out of place (input ≠ output).
enum FFTW {
    /// What a plan transforms. Sizes are `rows` × `cols`, row-major.
    enum Kind: Sendable {
        /// Real input → `rows` × `(cols / 2 + 1)` complex output, sign −1.
        case realForward
        /// The inverse of `realForward`, sign +1, unnormalised; it
        /// overwrites its input.
        case realInverse
        /// Complex → complex, sign −1.
        case complexForward
        /// Complex → complex, sign +1, unnormalised.
        case complexInverse
    }

    /// An FFTW plan, destroyed in `deinit`. Sendable because executing a
    /// plan is thread-safe in FFTW and nothing else is done with it.
    final class Plan: @unchecked Sendable {
        /// What the plan transforms.
        let kind: Kind
        private let handle: OpaquePointer

        fileprivate init(kind: Kind, handle: OpaquePointer) {
            self.kind = kind
            self.handle = handle
        }

        deinit {
            let handle = handle
            planner.withLock { _ in fftwf_destroy_plan(handle) }
        }

        /// Transforms `input` into `output`, arrays of the planned size from
        /// `allocateFloats`. `realInverse` overwrites `input`.
        ///
        /// The corresponding C functions are `fftwf_execute_dft_r2c`,
        /// `fftwf_execute_dft_c2r` and `fftwf_execute_dft`.
        func execute(_ input: UnsafeMutablePointer<Float>, into output: UnsafeMutablePointer<Float>) {
            switch kind {
            case .realForward: fftwf_execute_dft_r2c(handle, input, complex(output))
            case .realInverse: fftwf_execute_dft_c2r(handle, complex(input), output)
            case .complexForward, .complexInverse: fftwf_execute_dft(handle, complex(input), complex(output))
            }
        }
    }

    /// Plans a `rows` × `cols` transform of `kind` from `input` to `output`
    /// (arrays from `allocateFloats`, large enough for it, never read or
    /// written here); nil when FFTW cannot plan it. `rows` and `cols` must
    /// fit in an `Int32`.
    ///
    /// The corresponding C functions are `fftwf_plan_dft_r2c_2d`,
    /// `fftwf_plan_dft_c2r_2d` and `fftwf_plan_dft_2d`.
    static func plan(_ kind: Kind, rows: Int, cols: Int,
                     input: UnsafeMutablePointer<Float>, output: UnsafeMutablePointer<Float>) -> Plan? {
        let n0 = Int32(rows), n1 = Int32(cols)
        return planner.withLock { _ -> Plan? in
            let handle: OpaquePointer? = switch kind {
            case .realForward:
                fftwf_plan_dft_r2c_2d(n0, n1, input, complex(output), UInt32(FFTW_ESTIMATE))
            case .realInverse:
                fftwf_plan_dft_c2r_2d(n0, n1, complex(input), output,
                                      UInt32(FFTW_ESTIMATE) | UInt32(FFTW_DESTROY_INPUT))
            case .complexForward:
                fftwf_plan_dft_2d(n0, n1, complex(input), complex(output), FFTW_FORWARD, UInt32(FFTW_ESTIMATE))
            case .complexInverse:
                fftwf_plan_dft_2d(n0, n1, complex(input), complex(output), FFTW_BACKWARD, UInt32(FFTW_ESTIMATE))
            }
            return handle.map { Plan(kind: kind, handle: $0) }
        }
    }

    /// `count` floats (at least one), uninitialised, aligned as FFTW's plans
    /// expect; nil when the allocation fails. Free them with `free`.
    ///
    /// The corresponding C function is `fftwf_malloc`.
    static func allocateFloats(_ count: Int) -> UnsafeMutablePointer<Float>? {
        let floats = max(1, count)
        guard let raw = fftwf_malloc(floats * MemoryLayout<Float>.stride) else { return nil }
        return raw.bindMemory(to: Float.self, capacity: floats)
    }

    /// Frees memory from `allocateFloats`.
    ///
    /// The corresponding C function is `fftwf_free`.
    static func free(_ pointer: UnsafeMutablePointer<Float>) {
        fftwf_free(pointer)
    }
}

/// Serialises FFTW's planner: plans are made and destroyed under it.
private let planner = Mutex<Void>(())

/// An interleaved-float pointer as FFTW's complex pointer type.
@inline(__always)
private func complex(_ p: UnsafeMutablePointer<Float>) -> UnsafeMutablePointer<fftwf_complex> {
    UnsafeMutablePointer<fftwf_complex>(OpaquePointer(p))
}
