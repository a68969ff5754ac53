import Registration
import SceneGen
@testable import Stacker
import Testing

/// The kernels of `--sr-merge kernel` and the refusals around the robust merge.
@Suite("Steered kernels and robust drizzle edges")
struct SteeredKernelFieldTests {
    /// A 32 × 32 luma: 0.2 left of x = 16, 0.8 from it on, plus noise of σ `noise`.
    static func verticalEdge(noise: Double) -> Plane {
        var rng = SplitMix64(seed: 3)
        var plane = Plane(width: 32, height: 32)
        for y in 0..<32 { for x in 0..<32 {
            let n = noise * (rng.unit() + rng.unit() + rng.unit() - 1.5) * 2
            plane.pixels[y * 32 + x] = Float((x < 16 ? 0.2 : 0.8) + n)
        } }
        return plane
    }

    /// The kernel's σ² along x and y at `(x, y)`: Ω⁻¹ is diagonal on an axis-aligned edge.
    static func variances(_ field: SteeredKernelField, x: Int, y: Int) -> (x: Float, y: Float, xy: Float) {
        let m = field.inverse(x: x, y: y)
        let det = m.x * m.z - m.y * m.y
        return (m.z / det, m.x / det, -m.y / det)
    }

    /// The luma is a stack's: noise σ/4 of 16 frames of σ = 0.01.
    @Test("on a vertical edge the kernel is long along it and short across; on flat ground round and k_detail·k_denoise wide")
    func edgeAndFlat() {
        let field = SteeredKernelField(luma: Self.verticalEdge(noise: 0.0025), noise: 0.01)
        let k = SteeredKernelField.self
        let edge = Self.variances(field, x: 16, y: 16)
        // Fully anisotropic, fully detailed (A = 2, D = 0): σx = k_detail/k_shrink, σy = k_detail·k_stretch.
        #expect(abs(edge.x.squareRoot() - k.kDetail / k.kShrink) < 0.02, "σx on the edge \(edge.x.squareRoot())")
        #expect(abs(edge.y.squareRoot() - k.kDetail * k.kStretch) < 0.05, "σy on the edge \(edge.y.squareRoot())")
        #expect(abs(edge.xy) < 0.01 * edge.y, "the edge kernel is not axis-aligned: covariance \(edge.xy)")
        // Far from the edge only the stack's noise, under the frames' σ: D = 1, the denoising kernel.
        let flat = Self.variances(field, x: 4, y: 16), wide = k.kDetail * k.kDenoise
        #expect(abs(flat.x.squareRoot() / wide - 1) < 0.1 && abs(flat.y.squareRoot() / wide - 1) < 0.1,
                "flat σ \(flat.x.squareRoot()), \(flat.y.squareRoot()); k_detail·k_denoise \(wide)")
    }

    @Test("--robust with Bayer drizzle is refused with one line naming the reference")
    func robustMosaicRefused() throws {
        let frames = (0..<3).map { i -> FrameSource in
            .image(Image(width: 16, height: 16, planes: [Plane(width: 16, height: 16, pixels: [Float](repeating: 0.1 * Float(i + 1), count: 256))]))
        }
        var options = StackOptions()
        options.threads = 1
        options.cfa = .pattern(.rggb)
        options.whiteBalance = .none
        options.robustAverage = true
        options.alignment = .none
        options.drizzle = DrizzleOptions(scale: 2)
        #expect {
            _ = try stack(frames, options: options)
        } throws: { error in
            "\(error)".contains("--robust with --scale needs colour frames")
        }
    }
}
