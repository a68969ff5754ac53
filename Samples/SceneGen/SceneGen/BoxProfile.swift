/// One-dimensional soft-edged profiles, integrated exactly over a pixel's
/// width (a 1 px box filter centred on the pixel).
///
/// An edge at `e` rises as a smoothstep over `w` px; a rectangle `[a, b]` is
/// the difference of two edges. Because the box integral of the smoothstep has
/// a closed form, an axis-aligned rectangle's pixel coverage is the exact
/// product of its x and y profiles: the sensor's pixel integration with no
/// supersampling and no aliasing from hard edges.
enum BoxProfile {
    /// Antiderivative of the smoothstep `3t² − 2t³` (0 for t ≤ 0, slope 1 after t = 1).
    @inline(__always) static func smoothstepIntegral(_ t: Double) -> Double {
        if t <= 0 { return 0 }
        if t >= 1 { return t - 0.5 }
        let t3 = t * t * t
        return t3 - 0.5 * t3 * t
    }

    /// Mean over `[x − ½, x + ½]` of a step at `e` that rises over `w` px.
    @inline(__always) static func step(_ x: Double, at e: Double, softness w: Double) -> Double {
        let hi = (x + 0.5 - e) / w + 0.5, lo = (x - 0.5 - e) / w + 0.5
        return w * (smoothstepIntegral(hi) - smoothstepIntegral(lo))
    }

    /// Mean over the pixel at `x` of the soft rectangle `[a, b]`.
    @inline(__always) static func rect(_ x: Double, _ a: Double, _ b: Double, softness w: Double) -> Double {
        step(x, at: a, softness: w) - step(x, at: b, softness: w)
    }

    /// Mean over the pixel at `x` of a train of `count` soft pulses
    /// `[start + k·period, start + k·period + width]`. Needs `period ≥ width + w + 1`
    /// so that only the nearest pulses reach a pixel.
    @inline(__always) static func pulses(_ x: Double, start: Double, width: Double, period: Double,
                                         count: Int, softness w: Double) -> Double {
        guard count > 0 else { return 0 }
        let k0 = Int(((x - start) / period).rounded(.down))
        let lo = max(0, k0 - 1), hi = min(count - 1, k0 + 1)
        guard lo <= hi else { return 0 }
        var sum = 0.0
        for k in lo...hi {
            let a = start + Double(k) * period
            sum += rect(x, a, a + width, softness: w)
        }
        return sum
    }

    /// `sin(πf)/(πf)`: the gain of the 1 px box filter at `f` cycles/px.
    static func sinc(_ f: Double) -> Double {
        abs(f) < 1e-9 ? 1 : sinPi(f) / (Double.pi * f)
    }

    /// sin(π x) via the C library.
    static func sinPi(_ x: Double) -> Double { Math.sin(Double.pi * x) }
}
