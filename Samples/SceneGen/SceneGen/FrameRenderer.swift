internal import Registration
internal import Stacker
import Dispatch

/// The x profiles of one frame: every world quantity that depends only on the
/// column's reference coordinate `X = x + dx`, computed once per frame.
struct ColumnTables: Sendable {
    /// Flat storage; see the offsets.
    var data: [Float]
    /// Column ranges `[start, end)` where each building / pole is non-zero.
    var buildingRange: [(Int, Int)]
    var poleRange: [(Int, Int)]
    let width: Int
    let waveCount: Int

    // Layout: waves (sin, cos) × waveCount, buildings (body, windows, door) ×
    // buildings, poles, joints, dashes; each `width` long.
    func waveSin(_ k: Int) -> Int { (2 * k) * width }
    func waveCos(_ k: Int) -> Int { (2 * k + 1) * width }
    func body(_ b: Int) -> Int { (2 * waveCount + 3 * b) * width }
    func windows(_ b: Int) -> Int { body(b) + width }
    func door(_ b: Int) -> Int { body(b) + 2 * width }
    func pole(_ p: Int, buildings: Int) -> Int { (2 * waveCount + 3 * buildings + p) * width }
    func joints(buildings: Int, poles: Int) -> Int { (2 * waveCount + 3 * buildings + poles) * width }
    func dashes(buildings: Int, poles: Int) -> Int { joints(buildings: buildings, poles: poles) + width }

    init(world: StreetWorld, dx: Double, width: Int) {
        self.width = width
        let waves = world.coarse + world.fine
        waveCount = waves.count
        let nb = world.buildings.count, np = world.poles.count
        var d = [Float](repeating: 0, count: (2 * waves.count + 3 * nb + np + 2) * width)
        var br: [(Int, Int)] = [], pr: [(Int, Int)] = []
        let soft = StreetWorld.edgeSoftness
        let twoPi = 2 * Double.pi
        // Split the layout helpers out of `self` so the closures below capture nothing mutable.
        let wc = waves.count
        func off(_ slot: Int) -> Int { slot * width }
        func range(_ a: Double, _ b: Double) -> (Int, Int) {
            let lo = Int(max(0, min(Double(width), (a - dx - soft / 2 - 1).rounded(.down))))
            let hi = Int(max(0, min(Double(width), (b - dx + soft / 2 + 1).rounded(.up) + 1)))
            return (lo, max(lo, hi))
        }
        for x in 0..<width {
            let X = Double(x) + dx
            for (k, w) in waves.enumerated() {
                let a = twoPi * w.fx * X + w.phase
                d[off(2 * k) + x] = Float(Math.sin(a))
                d[off(2 * k + 1) + x] = Float(Math.cos(a))
            }
        }
        for (b, bld) in world.buildings.enumerated() {
            let r = range(bld.body.x0, bld.body.x1)
            br.append(r)
            let base = off(2 * wc + 3 * b)
            for x in r.0..<r.1 {
                let X = Double(x) + dx
                d[base + x] = Float(BoxProfile.rect(X, bld.body.x0, bld.body.x1, softness: soft))
                if let t = bld.windowsX {
                    d[base + width + x] = Float(BoxProfile.pulses(X, start: t.start, width: t.width, period: t.period,
                                                                  count: t.count, softness: soft))
                }
                if let door = bld.door {
                    d[base + 2 * width + x] = Float(BoxProfile.rect(X, door.x0, door.x1, softness: soft))
                }
            }
        }
        for (p, pole) in world.poles.enumerated() {
            let r = range(pole.x0, pole.x1)
            pr.append(r)
            let base = off(2 * wc + 3 * nb + p)
            for x in r.0..<r.1 {
                d[base + x] = Float(BoxProfile.rect(Double(x) + dx, pole.x0, pole.x1, softness: soft))
            }
        }
        let jb = off(2 * wc + 3 * nb + np), db = jb + width
        let j = world.joints, s = world.dashes
        for x in 0..<width {
            let X = Double(x) + dx
            d[jb + x] = Float(BoxProfile.pulses(X, start: j.start, width: j.width, period: j.period, count: j.count, softness: soft))
            d[db + x] = Float(BoxProfile.pulses(X, start: s.start, width: s.width, period: s.period, count: s.count, softness: soft))
        }
        data = d
        buildingRange = br
        poleRange = pr
    }
}

/// Renders one frame (or the truth) row by row, in parallel.
struct FrameRenderer: Sendable {
    let world: StreetWorld
    let config: SceneConfig
    /// Frame index (object positions, noise stream); −1 for the truth.
    let frame: Int
    let shift: FrameShift
    /// The objects visible on this frame.
    let objects: [SceneObject]
    let trail: Trail?
    let hotPixels: [SensorPixel]
    let noiseSigma: Double

    /// Rows per parallel work item.
    static let rowsPerBlock = 8
    /// Supersample offsets within a pixel (4 × 4, box filter) for curved edges.
    static let subsamples: [Double] = [-0.375, -0.125, 0.125, 0.375]

    func render() -> (image: Image, mask: Plane) {
        let W = config.width, H = config.height, ch = config.channels
        let tables = ColumnTables(world: world, dx: shift.dx, width: W)
        let n = W * H
        // Rows are written straight into the output arrays (one pass of page
        // faults per array; no staging buffer and no copy).
        var p0 = [Float](repeating: 0, count: n)
        var p1 = [Float](repeating: 0, count: ch == 3 ? n : 0)
        var p2 = [Float](repeating: 0, count: ch == 3 ? n : 0)
        var pm = [Float](repeating: 0, count: n)
        p0.withUnsafeMutableBufferPointer { b0 in
        p1.withUnsafeMutableBufferPointer { b1 in
        p2.withUnsafeMutableBufferPointer { b2 in
        pm.withUnsafeMutableBufferPointer { bm in
            guard let a0 = b0.baseAddress, let am = bm.baseAddress else { return }
            var planes = [SharedPointer(base: a0)]
            if ch == 3, let a1 = b1.baseAddress, let a2 = b2.baseAddress {
                planes += [SharedPointer(base: a1), SharedPointer(base: a2)]
            }
            let out = OutputRows(planes: planes, mask: SharedPointer(base: am), width: W)
            let blocks = (H + FrameRenderer.rowsPerBlock - 1) / FrameRenderer.rowsPerBlock
            DispatchQueue.concurrentPerform(iterations: blocks) { block in
                let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 5 * W)
                defer { scratch.deallocate() }
                let y0 = block * FrameRenderer.rowsPerBlock
                for y in y0..<min(H, y0 + FrameRenderer.rowsPerBlock) {
                    renderRow(y, tables: tables, scratch: scratch, out: out)
                }
            }
            // Hot pixels: stuck near full scale, at fixed sensor positions, after the noise.
            for (i, p) in hotPixels.enumerated() {
                var rng = SplitMix64(seed: config.seed, stream: 0x484F_54, UInt64(i)) // "HOT"
                let v = Float(rng.uniform(0.85, 1.0))
                var rgb: [Float] = [v, v, v]
                rgb[rng.below(3)] *= Float(rng.uniform(0.55, 1.0))
                let at = p.y * W + p.x
                if planes.count == 3 {
                    for c in 0..<3 { planes[c].base[at] = rgb[c] }
                } else {
                    a0[at] = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]
                }
                am[at] = 1
            }
        }}}}
        let planes = (ch == 3 ? [p0, p1, p2] : [p0]).map { Plane(width: W, height: H, pixels: $0) }
        return (Image(width: W, height: H, planes: planes), Plane(width: W, height: H, pixels: pm))
    }

    /// Renders row `y` into `out` (each channel plane and the mask).
    /// `scratch` holds 5 rows: R, G, B, coarse texture, fine texture.
    func renderRow(_ y: Int, tables: ColumnTables, scratch: UnsafeMutablePointer<Float>, out: OutputRows) {
        let W = config.width
        let r = scratch, g = scratch + W, b = scratch + 2 * W, tc = scratch + 3 * W, tf = scratch + 4 * W
        let Y = Double(y) + shift.dy
        let soft = StreetWorld.edgeSoftness
        let nb = world.buildings.count, np = world.poles.count
        tables.data.withUnsafeBufferPointer { tbuf in
            guard let t = tbuf.baseAddress else { return }
            // Textures: sin(A + B) = sin A cos B + cos A sin B, A from the column tables.
            for x in 0..<W { tc[x] = 0; tf[x] = 0 }
            let nCoarse = world.coarse.count
            for (k, wave) in (world.coarse + world.fine).enumerated() {
                let bArg = 2 * Double.pi * wave.fy * Y
                let sB = Float(Math.sin(bArg)) * wave.gain, cB = Float(Math.cos(bArg)) * wave.gain
                let sA = t + tables.waveSin(k), cA = t + tables.waveCos(k)
                let dst = k < nCoarse ? tc : tf
                for x in 0..<W { dst[x] += sA[x] * cB + cA[x] * sB }
            }
            // Sky: vertical gradient with faint clouds.
            let h = Float(min(max(Y / world.groundY, 0), 1))
            let skyR: Float = 0.32 + 0.48 * h, skyG: Float = 0.52 + 0.35 * h, skyB: Float = 0.86 + 0.09 * h
            for x in 0..<W {
                let c = 0.07 * tc[x]
                r[x] = skyR + c; g[x] = skyG + c; b[x] = skyB + c
            }
            // Buildings, back to front.
            for (i, bld) in world.buildings.enumerated() {
                let by = Float(BoxProfile.rect(Y, bld.body.y0, bld.body.y1, softness: soft))
                guard by > 0 else { continue }
                var wy: Float = 0, dy: Float = 0
                if let wt = bld.windowsY {
                    wy = Float(BoxProfile.pulses(Y, start: wt.start, width: wt.width, period: wt.period,
                                                 count: wt.count, softness: soft))
                }
                if let d = bld.door { dy = Float(BoxProfile.rect(Y, d.y0, d.y1, softness: soft)) }
                let bx = t + tables.body(i), wx = t + tables.windows(i), dx = t + tables.door(i)
                let (cr, cg, cb) = (bld.colour.x, bld.colour.y, bld.colour.z)
                let (wr, wg, wb) = (bld.windowColour.x, bld.windowColour.y, bld.windowColour.z)
                let (dr, dg, db) = (bld.doorColour.x, bld.doorColour.y, bld.doorColour.z)
                let tex = bld.texture
                let (x0, x1) = tables.buildingRange[i]
                for x in x0..<x1 {
                    let a = bx[x] * by
                    if a <= 0 { continue }
                    let m = 1 + tex * tf[x] + 1.5 * tex * tc[x]
                    var fr = cr * m, fg = cg * m, fb = cb * m
                    if wy > 0 {
                        let w = wx[x] * wy
                        if w > 0 {
                            let refl = 1 + 0.6 * tc[x] + 0.15 * tf[x]
                            fr += w * (wr * refl - fr); fg += w * (wg * refl - fg); fb += w * (wb * refl - fb)
                        }
                    }
                    if dy > 0 {
                        let d = dx[x] * dy
                        fr += d * (dr - fr); fg += d * (dg - fg); fb += d * (db - fb)
                    }
                    r[x] += a * (fr - r[x]); g[x] += a * (fg - g[x]); b[x] += a * (fb - b[x])
                }
            }
            // Pavement with joints, kerb, road with lane dashes.
            let sw = Float(BoxProfile.rect(Y, world.groundY, world.roadY, softness: soft))
            let kb = Float(BoxProfile.rect(Y, world.roadY - world.kerbHeight, world.roadY, softness: soft))
            let rd = Float(BoxProfile.step(Y, at: world.roadY, softness: soft))
            let ln = Float(BoxProfile.rect(Y, world.laneY0, world.laneY1, softness: soft))
            let jx = t + tables.joints(buildings: nb, poles: np), lx = t + tables.dashes(buildings: nb, poles: np)
            if sw > 0 || kb > 0 || rd > 0 {
                for x in 0..<W {
                    if sw > 0 {
                        let m = (1 + 0.08 * tf[x]) * (1 - 0.3 * jx[x])
                        r[x] += sw * (0.62 * m - r[x]); g[x] += sw * (0.60 * m - g[x]); b[x] += sw * (0.57 * m - b[x])
                    }
                    if kb > 0 {
                        let m = 1 + 0.04 * tf[x]
                        r[x] += kb * (0.80 * m - r[x]); g[x] += kb * (0.79 * m - g[x]); b[x] += kb * (0.76 * m - b[x])
                    }
                    if rd > 0 {
                        let m = 1 + 0.3 * tf[x] + 0.2 * tc[x]
                        var ar = 0.20 * m, ag = 0.20 * m, ab = 0.22 * m
                        let l = ln * lx[x]
                        if l > 0 { ar += l * (0.92 - ar); ag += l * (0.90 - ag); ab += l * (0.78 - ab) }
                        r[x] += rd * (ar - r[x]); g[x] += rd * (ag - g[x]); b[x] += rd * (ab - b[x])
                    }
                }
            }
            // Street lamps in front.
            for (p, pole) in world.poles.enumerated() {
                let py = Float(BoxProfile.rect(Y, pole.y0, pole.y1, softness: soft))
                guard py > 0 else { continue }
                let px = t + tables.pole(p, buildings: nb)
                let (x0, x1) = tables.poleRange[p]
                for x in x0..<x1 {
                    let a = px[x] * py
                    r[x] += a * (0.15 - r[x]); g[x] += a * (0.16 - g[x]); b[x] += a * (0.17 - b[x])
                }
            }
        }
        for x in 0..<W {
            r[x] = min(max(r[x], 0), 1); g[x] = min(max(g[x], 0), 1); b[x] = min(max(b[x], 0), 1)
        }
        let mask = out.mask.base + y * W
        drawObjects(y: y, Y: Y, r: r, g: g, b: b, mask: mask)
        if let trail { drawTrail(trail, y: y, r: r, g: g, b: b, mask: mask) }

        // Out: planes (or luma), noise, clip.
        var rng = SplitMix64(seed: config.seed, stream: 0x4E4F_4953_45 &+ UInt64(frame + 1), UInt64(y)) // "NOISE"
        var gauss = GaussianSource()
        let sigma = Float(noiseSigma)
        let rows: [UnsafeMutablePointer<Float>] = config.channels == 3 ? [r, g, b] : [r]
        if config.channels == 1 {
            for x in 0..<W { r[x] = 0.299 * r[x] + 0.587 * g[x] + 0.114 * b[x] }
        }
        for (c, src) in rows.enumerated() {
            let dst = out.planes[c].base + y * W
            if sigma > 0 {
                for x in 0..<W { dst[x] = min(max(src[x] + sigma * gauss.next(&rng), 0), 1) }
            } else {
                for x in 0..<W { dst[x] = src[x] }
            }
        }
    }

    /// Composites the objects over row `y` (reference row coordinate `Y`).
    func drawObjects(y: Int, Y: Double, r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>,
                     b: UnsafeMutablePointer<Float>, mask: UnsafeMutablePointer<Float>) {
        let W = config.width
        let dx = shift.dx
        let sub = FrameRenderer.subsamples
        for o in objects {
            let bb = o.bounds(frame: frame)
            guard Y >= bb.minY - 1, Y <= bb.maxY + 1 else { continue }
            let x0 = Int(max(0, min(Double(W), (bb.minX - dx - 1).rounded(.down))))
            let x1 = Int(max(0, min(Double(W - 1), (bb.maxX - dx + 1).rounded(.up))))
            guard x0 <= x1 else { continue }
            let (cr, cg, cb) = (o.colour[0], o.colour[1], o.colour[2])
            for x in x0...x1 {
                let X = Double(x) + dx
                let sd = o.signedDistance(x: X, y: Y, frame: frame)
                var alpha: Double
                if sd <= -1.5 {
                    alpha = 1
                } else if sd >= 1.5 {
                    alpha = 0
                } else {
                    alpha = 0
                    for oy in sub {
                        for ox in sub {
                            alpha += min(max(0.5 - o.signedDistance(x: X + ox, y: Y + oy, frame: frame), 0), 1)
                        }
                    }
                    alpha /= 16
                }
                guard alpha > 0 else { continue }
                let a = Float(alpha)
                mask[x] = 1
                r[x] += a * (cr - r[x]); g[x] += a * (cg - g[x]); b[x] += a * (cb - b[x])
            }
        }
    }

    /// Adds the trail to row `y` (frame coordinates).
    func drawTrail(_ t: Trail, y: Int, r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>,
                   b: UnsafeMutablePointer<Float>, mask: UnsafeMutablePointer<Float>) {
        let W = config.width
        let yy = Double(y)
        let reach = t.halfWidth + 2
        var x0 = 0, x1 = W - 1
        if abs(t.nx) > 1e-6 {
            let xc = (t.offset - t.ny * yy) / t.nx, span = reach / abs(t.nx)
            x0 = Int(max(0, min(Double(W), (xc - span).rounded(.down))))
            x1 = Int(max(-1, min(Double(W - 1), (xc + span).rounded(.up))))
        } else if abs(t.ny * yy - t.offset) > reach {
            return
        }
        guard x0 <= x1 else { return }
        let sub = FrameRenderer.subsamples
        for x in x0...x1 {
            let xx = Double(x)
            let d = t.nx * xx + t.ny * yy - t.offset
            guard abs(d) < t.halfWidth + 1.5 else { continue }
            var alpha = 0.0
            for oy in sub {
                for ox in sub {
                    alpha += min(max(t.halfWidth + 0.5 - abs(d + t.nx * ox + t.ny * oy), 0), 1)
                }
            }
            alpha /= 16
            guard alpha > 0 else { continue }
            let a = Float(alpha)
            mask[x] = 1
            r[x] += a * (t.level[0] - r[x]); g[x] += a * (t.level[1] - g[x]); b[x] += a * (t.level[2] - b[x])
        }
    }
}

/// Where a frame's rows go: one pointer per channel plane and one for the mask,
/// each `width × height` floats, row-major.
struct OutputRows: Sendable {
    let planes: [SharedPointer]
    let mask: SharedPointer
    let width: Int
}

/// Standard normal samples by the Marsaglia polar method (no trigonometry),
/// two per accepted pair.
struct GaussianSource {
    var spare: Float = 0
    var hasSpare = false

    mutating func next(_ rng: inout SplitMix64) -> Float {
        if hasSpare {
            hasSpare = false
            return spare
        }
        while true {
            let u = 2 * rng.unit() - 1, v = 2 * rng.unit() - 1
            let s = u * u + v * v
            if s > 0, s < 1 {
                let m = (-2 * Math.log(s) / s).squareRoot()
                spare = Float(v * m)
                hasSpare = true
                return Float(u * m)
            }
        }
    }
}
