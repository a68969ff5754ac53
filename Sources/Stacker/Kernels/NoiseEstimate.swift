public import Registration

/// Estimates the standard deviation of additive white noise in `plane`
/// (same units as the samples, 0…1 for Stacker images), for `--weights auto`.
///
/// Method: the plane is filtered with Immerkær's 3×3 mask
/// `[1 −2 1; −2 4 −2; 1 −2 1]` (the product of second differences in x and
/// y), which cancels constant, linear and purely horizontal or vertical
/// structure, so what is left is mostly noise. For white noise of sigma σ
/// the filtered value has sigma 6σ (the mask's L2 norm is √36). The robust
/// sigma of the residuals, 1.4826 · MAD, divided by 6 is the estimate; the
/// MAD ignores the sparse large residuals that edges and fine texture leave.
///
/// Windows touching a clipped sample (≤ 0 or ≥ 1) are skipped, since
/// clipping hides noise. At most about 2²¹ residuals are used (a regular
/// subsample on large planes), so the cost is bounded.
///
/// - Returns: the sigma estimate; 0 for planes smaller than 3×3 or with no
///   usable window.
public func estimateNoiseSigma(_ plane: Plane) -> Double {
    let w = plane.width, h = plane.height
    guard w >= 3, h >= 3 else { return 0 }
    let interior = (w - 2) * (h - 2)
    let budget = 1 << 21
    // Row step so that about `budget` windows are visited.
    let rowStep = max(1, interior / budget)
    var residuals: [Float] = []
    residuals.reserveCapacity(min(interior, budget + w))
    plane.pixels.withUnsafeBufferPointer { pb in
        guard let p = pb.baseAddress else { return }
        var y = 1
        while y < h - 1 {
            let up = p + (y - 1) * w, mid = p + y * w, down = p + (y + 1) * w
            for x in 1..<(w - 1) {
                let a = up[x - 1], b = up[x], c = up[x + 1]
                let d = mid[x - 1], e = mid[x], f = mid[x + 1]
                let g = down[x - 1], hh = down[x], i = down[x + 1]
                let lo = min(min(min(a, b), min(c, d)), min(min(e, f), min(min(g, hh), i)))
                let hi = max(max(max(a, b), max(c, d)), max(max(e, f), max(max(g, hh), i)))
                guard lo > 0, hi < 1 else { continue }
                let r = (a + c + g + i) - 2 * (b + d + f + hh) + 4 * e
                residuals.append(r)
            }
            y += rowStep
        }
    }
    guard !residuals.isEmpty else { return 0 }
    let mad: Float = residuals.withUnsafeMutableBufferPointer { rb in
        let m = Median.inPlace(rb)
        for i in 0..<rb.count { rb[i] = abs(rb[i] - m) }
        return Median.inPlace(rb)
    }
    return Double(SigmaClip.madToSigma) * Double(mad) / 6
}

/// Frame weights for `--weights auto`: inverse noise variance 1/σᵢ²,
/// normalised so the weights average 1.
///
/// A sigma that is 0, negative or not finite (a noiseless synthetic frame, a
/// flat frame) is raised to the 16-bit quantisation floor 1/(65535·√12) so
/// no weight is infinite. An empty input gives an empty array.
public func inverseNoiseVarianceWeights(_ sigmas: [Double]) -> [Float] {
    guard !sigmas.isEmpty else { return [] }
    let floor = 1 / (65535 * 12.0.squareRoot())
    let raw = sigmas.map { s -> Double in
        let e = (s.isFinite && s > floor) ? s : floor
        return 1 / (e * e)
    }
    let mean = raw.reduce(0, +) / Double(raw.count)
    return raw.map { Float($0 / mean) }
}

// References
// - J. Immerkær, "Fast noise variance estimation", Computer Vision and Image
//   Understanding 64(2), 1996 (the 3×3 mask and its gain).
// - P. J. Rousseeuw and C. Croux, "Alternatives to the median absolute
//   deviation", J. Am. Stat. Assoc. 88(424), 1993.
// - D. L. Donoho and I. M. Johnstone, "Ideal spatial adaptation by wavelet
//   shrinkage", Biometrika 81(3), 1994 (robust MAD noise estimate of a high-pass).
