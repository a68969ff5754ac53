import Foundation
import Registration
import Testing
import TestSupport

/// A façade: a grid of window-like blocks with a short vertical period
/// (rows of windows, paving joints) over a weaker aperiodic texture, defined
/// at every real coordinate so frames can be rendered at exact subpixel
/// shifts. Windows are dark rectangles with smoothstep edges (as
/// `BlockScene`), so they carry energy up to Nyquist; the vertical period is
/// close to the coarse factor times 2, so after box-downscaling it aliases
/// to near the coarse Nyquist and the coarse phase correlation sees peaks one
/// period apart of similar height.
struct FacadeScene {
    /// One sinusoid of the fine aperiodic texture: `a·cos(2π(fx·x + fy·y) + φ)`.
    struct Wave { var fx, fy, phase: Double; var amplitude: Float }
    let periodY: Double
    let windowH: Double
    /// Window columns `[x0, x1)` at irregular spacing (aperiodic in x).
    let columns: [(Double, Double)]
    let level: Float
    let waves: [Wave]
    /// Weak smooth aperiodic texture (what breaks the tie at coarse scale).
    let texture: Texture

    init(seed: UInt64, width: Int, height: Int, periodY: Double, level: Float,
         fineContrast: Double, smoothContrast: Double, margin: Int) {
        texture = Texture(seed: seed &+ 5, width: width, height: height, margin: margin, contrast: smoothContrast)
        var rng = TestRandom(seed: seed)
        self.periodY = periodY
        windowH = periodY * 0.5
        self.level = level
        var cols: [(Double, Double)] = []
        var x = -Double(margin)
        while x < Double(width + margin) {
            let w = 4 + rng.uniform() * 14, gap = 3 + rng.uniform() * 12
            cols.append((x, x + w))
            x += w + gap
        }
        columns = cols
        // Frequencies 0.2–0.45 cycles/px: box-downscaling by ≥ 4 averages
        // them away (and aliases the rest incoherently), so the coarse search
        // sees only the periodic rows, the full-resolution match does not.
        let count = 16
        let amp = Float(fineContrast * (2.0 / Double(count)).squareRoot())
        waves = (0..<count).map { _ in
            let f = 0.2 + rng.uniform() * 0.25, theta = rng.uniform() * 2 * Double.pi
            return Wave(fx: f * cos(theta), fy: f * sin(theta), phase: rng.uniform() * 2 * Double.pi, amplitude: amp)
        }
    }

    /// 1 inside a window row of the period cell, smoothstep edges.
    func rowProfile(_ t: Double) -> Float {
        var u = t.truncatingRemainder(dividingBy: periodY)
        if u < 0 { u += periodY }
        let c = periodY / 2, h = windowH / 2
        return BlockScene.edge(u - (c - h)) * BlockScene.edge((c + h) - u)
    }

    /// `frame(x, y) = scene(x + dx, y + dy)`.
    func render(width: Int, height: Int, dx: Double, dy: Double) -> Plane {
        var px = [Float](repeating: 0, count: width)
        var k = 0
        for x in 0..<width {
            let X = Double(x) + dx
            while k < columns.count && columns[k].1 + BlockScene.edgeWidth < X { k += 1 }
            var v: Float = 0
            for j in max(0, k - 1)..<min(columns.count, k + 2) {
                v = max(v, BlockScene.edge(X - columns[j].0) * BlockScene.edge(columns[j].1 - X))
            }
            px[x] = v
        }
        let py = (0..<height).map { rowProfile(Double($0) + dy) }
        var pixels = texture.render(width: width, height: height, dx: dx, dy: dy).pixels
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                let v = level * py[y]
                guard v != 0 else { continue }
                for x in 0..<width { out[y * width + x] -= v * px[x] }
            }
            // Separable sinusoids: cos(a + b) = cos a cos b − sin a sin b.
            var cx = [Float](repeating: 0, count: width), sx = cx
            for wv in waves {
                for x in 0..<width {
                    let a = 2 * Double.pi * wv.fx * (Double(x) + dx) + wv.phase
                    cx[x] = wv.amplitude * Float(cos(a)); sx[x] = wv.amplitude * Float(sin(a))
                }
                cx.withUnsafeBufferPointer { cxp in
                    sx.withUnsafeBufferPointer { sxp in
                        for y in 0..<height {
                            let b = 2 * Double.pi * wv.fy * (Double(y) + dy)
                            let cb = Float(cos(b)), sb = Float(sin(b))
                            let row = out.baseAddress! + y * width
                            for x in 0..<width { row[x] += cxp[x] * cb - sxp[x] * sb }
                        }
                    }
                }
            }
        }
        return Plane(width: width, height: height, pixels: pixels)
    }
}

@Suite("Periodic structure registration")
struct PeriodicStructureRegistrationTests {
    @Test("rows of windows with a 10.7 px vertical period: no jump by one period, error ≤ 0.05 px")
    func periodicFacade() throws {
        // 2304×1728: coarse factor 5, so the 10.7 px rows alias to ≈ 2.1
        // coarse px, and the fine texture (0.2–0.45 cycles/px) is averaged
        // away; the smooth texture (contrast 0.001) is what decides the
        // coarse peak. Measured before the multi-candidate search: 3 of 4
        // frames off by 2–4 periods (21–43 px); after: ≤ 0.008 px. The bound
        // 0.05 px is the accuracy asked of the registrar, far below a period.
        let w = 2304, h = 1728, py = 10.7, lev: Float = 0.3, tc = 0.05, lt = 0.001
        let seed: UInt64 = 51
        let scene = FacadeScene(seed: seed, width: w, height: h, periodY: py,
                                level: lev, fineContrast: tc, smoothContrast: lt, margin: 16)
        func shot(_ dx: Double, _ dy: Double, _ i: UInt64) -> Plane {
            scene.render(width: w, height: h, dx: dx, dy: dy)
                .addingNoise(sigma: 0.01, seed: seed &+ 200 &+ i)
                .quantised8()
        }
        let reg = try TranslationRegistrar(reference: shot(0, 0, 0))
        var rng = TestRandom(seed: seed &+ 300)
        // Two frames keep the test affordable in debug builds; before the fix
        // both were off by 2–3 periods (32 and 21 px).
        for i in 1...2 {
            let dx = (rng.uniform() * 2 - 1) * 6, dy = (rng.uniform() * 2 - 1) * 6
            let e = try reg.estimate(shot(dx, dy, UInt64(i)))
            let err = ((e.dx - dx) * (e.dx - dx) + (e.dy - dy) * (e.dy - dy)).squareRoot()
            print("periodic \(w)x\(h) frame \(i): truth (\(dx), \(dy)) got (\(e.dx), \(e.dy)) err \(err) score \(e.score)")
            #expect(e.isAccepted, "frame \(i) scored \(e.score)")
            #expect(err <= 0.05, "frame \(i): error \(err) px")
        }
    }
}
