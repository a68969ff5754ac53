@testable import Registration

/// The general warp computed the slow way, as reference for the stepped
/// spans (`ProjectiveSpan`, `FieldRow.projectiveMap`): every
/// reference pixel's frame position divided out in `Double` (through the
/// field's displacement there, when one is given), rounded to the kernel's
/// phase table as the warp rounds it, and every tap clamped to the frame.
/// Samples differ from the warp's only where a stepped position rounds to
/// another phase, and by float rounding of the sums.
enum PerPixelWarp {
    static func warp(_ plane: Plane, by transform: Transform, field: DisplacementField? = nil,
                     width: Int, height: Int, interpolation: Interpolation = .lanczos3)
        -> (samples: [Float], coverage: [Float])? {
        guard let m = transform.inverse?.matrix else { return nil }
        let one = GeneralWarp.one
        let table = interpolation.phaseTable.weights
        let taps = interpolation.taps, first = interpolation.firstTap
        let half = interpolation == .nearest ? Int64(1) << 31 : Int64(1) << (GeneralWarp.phaseShift - 1)
        let mask = Int64(WeightTable.phases - 1)
        let fw = plane.width, fh = plane.height
        let e = Warper.edgeEpsilon
        var samples = [Float](repeating: 0, count: width * height), coverage = samples
        for yr in 0..<height {
            for xr in 0..<width {
                var px = Double(xr), py = Double(yr)
                if let field {
                    let d = field.displacement(x: px, y: py)
                    px += d.dx; py += d.dy
                }
                let w = m[6] * px + m[7] * py + m[8]
                guard w != 0 else { continue }
                let xf = (m[0] * px + m[1] * py + m[2]) / w, yf = (m[3] * px + m[4] * py + m[5]) / w
                guard xf >= -e, xf <= Double(fw - 1) + e, yf >= -e, yf <= Double(fh - 1) + e else { continue }
                let rx = Int64((xf * one).rounded(.down)) + half, ry = Int64((yf * one).rounded(.down)) + half
                let bx = Int(rx >> 32) + first, by = Int(ry >> 32) + first
                let wx = Int((rx >> GeneralWarp.phaseShift) & mask) * WeightTable.stride
                let wy = Int((ry >> GeneralWarp.phaseShift) & mask) * WeightTable.stride
                var acc: Float = 0
                for j in 0..<taps {
                    var row: Float = 0
                    for i in 0..<taps { row += table[wx + i] * plane[min(max(bx + i, 0), fw - 1), min(max(by + j, 0), fh - 1)] }
                    acc += table[wy + j] * row
                }
                samples[yr * width + xr] = acc
                coverage[yr * width + xr] = 1
            }
        }
        return (samples, coverage)
    }
}
