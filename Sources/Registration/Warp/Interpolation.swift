/// Resampling kernel used by `Warper`.
public enum Interpolation: String, Sendable, Equatable, CaseIterable {
    /// The nearest sample, 1 tap: no resampling at all. A translation is
    /// rounded to whole pixels, so every output sample is an input sample
    /// (noise keeps its per-pixel independence, alignment loses up to
    /// 0.5 px). Transforms with rotation or scale take the sample nearest
    /// each position.
    case nearest
    /// Linear interpolation per axis, 2×2 taps. Smooths noise the most (a
    /// half-pixel shift averages 4 samples) and blurs detail the most.
    case bilinear
    /// Keys cubic convolution with a = −0.5 (Catmull-Rom), 4×4 taps.
    /// Interpolating (exact at integer offsets), C¹, third-order accurate.
    case bicubic = "cubic"
    /// Lanczos windowed sinc with a = 3, 6×6 taps, weights normalised to sum 1.
    /// Sharper than bicubic on band-limited detail, with slightly more ringing.
    case lanczos3

    /// Taps per axis.
    public var taps: Int {
        switch self {
        case .nearest: return 1
        case .bilinear: return 2
        case .bicubic: return 4
        case .lanczos3: return 6
        }
    }
    /// Offset of the first tap from `floor(x)` (for `.nearest`, from the
    /// rounded position).
    public var firstTap: Int {
        switch self {
        case .nearest, .bilinear: return 0
        case .bicubic: return -1
        case .lanczos3: return -2
        }
    }

    /// Writes the tap weights for fractional offset `t` ∈ [0, 1) into `w`
    /// (`taps` values, for sample positions `floor(x) + firstTap + i`).
    @inline(__always)
    package func weights(_ t: Float, into w: UnsafeMutablePointer<Float>) {
        switch self {
        case .nearest:
            w[0] = 1
        case .bilinear:
            w[0] = 1 - t
            w[1] = t
        case .bicubic:
            // Keys (1981), a = −0.5, expanded per tap.
            let t2 = t * t, t3 = t2 * t
            w[0] = 0.5 * (-t3 + 2 * t2 - t)
            w[1] = 0.5 * (3 * t3 - 5 * t2 + 2)
            w[2] = 0.5 * (-3 * t3 + 4 * t2 + t)
            w[3] = 0.5 * (t3 - t2)
        case .lanczos3:
            // Within 1e-6 px of a tap the sample is that pixel: the formula
            // below divides by the squared distance, which underflows to 0
            // (a NaN weight) for tiny offsets, and a Float offset just below
            // 1 can round to exactly 1.
            if t < 1e-6 || t > 1 - 1e-6 {
                let at = t < 0.5 ? 2 : 3
                for i in 0..<6 { w[i] = i == at ? 1 : 0 }
                return
            }
            // Tap i sits at distance d = t − k, k = i − 2 ∈ −2…3.
            // sin(π d) = (−1)^k sin(π t); sin(π d / 3) by angle subtraction,
            // so each weight costs no trigonometry of its own.
            let a = Float.pi * t
            let s = sinf(a), sa = sinf(a / 3), ca = cosf(a / 3)
            var sum: Float = 0
            for i in 0..<6 {
                let k = i - 2
                let d = t - Float(k)
                let sk = (k & 1) == 0 ? s : -s
                let s3 = sa * Lanczos.cos3[i] - ca * Lanczos.sin3[i]
                let v = 3 * sk * s3 / (Float.pi * Float.pi * d * d)
                w[i] = v
                sum += v
            }
            let inv = 1 / sum
            for i in 0..<6 { w[i] *= inv }
        }
    }
}

/// Kernel weights at `phases` evenly spaced fractional offsets (0, 1/phases,
/// …, (phases − 1)/phases): `weights[p · stride + i]` is tap `i` at offset
/// `p / phases` (taps past the kernel's are 0, so every phase can be loaded
/// as one 8-lane vector). Rounding a position to the nearest phase moves it by at
/// most 1 / (2 · phases) ≈ 0.00012 px, far below registration accuracy.
struct WeightTable: Sendable {
    /// Phases per pixel.
    static let phases = 4096
    /// Floats per phase (at least the largest kernel's taps).
    static let stride = 8
    /// Row-major weights, `phases × stride`.
    let weights: [Float]

    init(_ interpolation: Interpolation) {
        var w = [Float](repeating: 0, count: Self.phases * Self.stride)
        w.withUnsafeMutableBufferPointer { p in
            for phase in 0..<Self.phases {
                interpolation.weights(Float(phase) / Float(Self.phases), into: p.baseAddress! + phase * Self.stride)
            }
        }
        weights = w
    }

    static let nearest = WeightTable(.nearest)
    static let bilinear = WeightTable(.bilinear)
    static let bicubic = WeightTable(.bicubic)
    static let lanczos3 = WeightTable(.lanczos3)
}

extension Interpolation {
    /// The precomputed weights of this kernel (built once per process).
    var phaseTable: WeightTable {
        switch self {
        case .nearest: return WeightTable.nearest
        case .bilinear: return WeightTable.bilinear
        case .bicubic: return WeightTable.bicubic
        case .lanczos3: return WeightTable.lanczos3
        }
    }
}

/// Constant tables for Lanczos-3 weights: cos(π k / 3), sin(π k / 3), k = −2…3.
private enum Lanczos {
    static let cos3: [Float] = (-2...3).map { Float(cos(Double.pi * Double($0) / 3)) }
    static let sin3: [Float] = (-2...3).map { Float(sin(Double.pi * Double($0) / 3)) }
}

#if canImport(Glibc)
import Glibc
#endif
