public import Stacker
internal import Registration
import Dispatch

/// Rendering: every frame is the expected electrons per pixel, then the
/// sensor (Poisson and read noise, bias, gain, 16-bit quantisation).
extension StarField {
    /// Light frame `i` (0 is the reference) as the sensor records it:
    /// stars, sky and trail through the vignetting, plus dark current and
    /// hot pixels, noise, bias; whole ADU / 65535.
    public func light(_ i: Int) -> Image {
        precondition(i >= 0 && i < config.frameCount, "light frame \(i) out of 0..<\(config.frameCount)")
        var planes = starElectrons(frame: i)
        let c = config, w = c.width, h = c.height
        let m = transforms[i].matrix
        let tint = skyTint
        let hasTrail = i == c.trailFrame
        for ch in 0..<c.channels {
            planes[ch].withUnsafeMutableBufferPointer { p in
                let out = SharedPointer(base: p.baseAddress!)
                DispatchQueue.concurrentPerform(iterations: h) { y in
                    for x in 0..<w {
                        let fx = Double(x), fy = Double(y)
                        let xr = m[0] * fx + m[1] * fy + m[2], yr = m[3] * fx + m[4] * fy + m[5]
                        var e = sky(frame: i, x: xr, y: yr) * tint[ch] + Double(out.base[y * w + x])
                        if hasTrail { e += c.trailBrightness * trailCoverage(x: fx, y: fy) }
                        out.base[y * w + x] = Float(e * flatResponse(x: fx, y: fy) + c.darkCurrent)
                    }
                }
            }
        }
        addHotPixels(&planes)
        return digitise(planes, kind: 1, index: i)
    }

    /// Bias frame `i`: the pedestal and read noise only.
    public func bias(_ i: Int) -> Image {
        digitise(blank(0), kind: 2, index: i)
    }

    /// Dark frame `i`: as long as a light, shutter closed — bias, dark
    /// current and hot pixels, with their noise.
    public func dark(_ i: Int) -> Image {
        var planes = blank(Float(config.darkCurrent))
        addHotPixels(&planes)
        return digitise(planes, kind: 3, index: i)
    }

    /// Flat frame `i`: an evenly lit field at `flatLevel` through the
    /// vignetting (short exposure: no dark current).
    public func flat(_ i: Int) -> Image {
        var planes = blank(0)
        let c = config, w = c.width
        for ch in 0..<c.channels {
            for y in 0..<c.height {
                for x in 0..<w {
                    planes[ch][y * w + x] = Float(c.flatLevel * flatResponse(x: Double(x), y: Double(y)))
                }
            }
        }
        return digitise(planes, kind: 4, index: i)
    }

    /// The ground truth: the reference frame as a perfect calibration
    /// leaves it, without noise, trail or defects — sky and stars in e⁻
    /// times `meanFlat`, divided by the gain, as ADU / 65535.
    public func truth() -> Image {
        var planes = starElectrons(frame: 0)
        let c = config, w = c.width
        let scale = meanFlat / c.gain / 65535
        let tint = skyTint
        for ch in 0..<c.channels {
            for y in 0..<c.height {
                for x in 0..<w {
                    let e = sky(frame: 0, x: Double(x), y: Double(y)) * tint[ch] + Double(planes[ch][y * w + x])
                    planes[ch][y * w + x] = Float(e * scale)
                }
            }
        }
        return Image(width: w, height: c.height,
                     planes: planes.map { Plane(width: w, height: c.height, pixels: $0) })
    }

    /// Per-channel colour of the sky glow (a warm light-pollution tint in colour).
    var skyTint: [Double] { config.channels == 1 ? [1] : [1.15, 1.0, 0.85] }

    /// Planes of `value` e⁻, one per channel.
    private func blank(_ value: Float) -> [[Float]] {
        [[Float]](repeating: [Float](repeating: value, count: config.width * config.height), count: config.channels)
    }

    /// Adds the hot pixels' extra dark current (every channel: the defect is in the sensor).
    private func addHotPixels(_ planes: inout [[Float]]) {
        for (p, current) in zip(hotPixels, hotPixelCurrents) {
            for ch in planes.indices { planes[ch][p.y * config.width + p.x] += Float(current) }
        }
    }

    /// The stars of frame `i` in e⁻ per pixel, per channel, before
    /// vignetting: each a Gaussian PSF of the frame's FWHM integrated over
    /// the pixel area (products of error-function differences), so
    /// subpixel positions are exact.
    func starElectrons(frame i: Int) -> [[Float]] {
        var planes = blank(0)
        let w = config.width, h = config.height
        guard let inverse = transforms[i].inverse else { return planes }
        let sigma = fwhms[i] / (8 * Math.log(2)).squareRoot()
        let radius = Int((4.5 * sigma).rounded(.up)) + 1
        let k = 1 / (sigma * 2.0.squareRoot())
        var ex = [Double](repeating: 0, count: 2 * radius + 1), ey = ex
        for star in stars {
            let p = inverse.apply(x: star.x, y: star.y)
            let ix = Int(p.x.rounded()), iy = Int(p.y.rounded())
            guard ix + radius >= 0, ix - radius < w, iy + radius >= 0, iy - radius < h else { continue }
            for j in 0...(2 * radius) {
                let dx = Double(ix - radius + j) - p.x, dy = Double(iy - radius + j) - p.y
                ex[j] = 0.5 * (Math.erf((dx + 0.5) * k) - Math.erf((dx - 0.5) * k))
                ey[j] = 0.5 * (Math.erf((dy + 0.5) * k) - Math.erf((dy - 0.5) * k))
            }
            for jy in 0...(2 * radius) {
                let y = iy - radius + jy
                guard y >= 0 && y < h else { continue }
                for jx in 0...(2 * radius) {
                    let x = ix - radius + jx
                    guard x >= 0 && x < w else { continue }
                    let e = star.flux * ex[jx] * ey[jy]
                    for ch in 0..<planes.count { planes[ch][y * w + x] += Float(e * star.colour[ch]) }
                }
            }
        }
        return planes
    }

    /// The sensor: expected e⁻ → Poisson (as a Gaussian of that variance)
    /// plus read noise → ADU through the gain, plus bias, rounded to whole
    /// ADU and clipped to 0…65535, stored / 65535. One noise stream per
    /// frame kind, index, channel and row.
    private func digitise(_ electrons: [[Float]], kind: UInt64, index: Int) -> Image {
        let c = config, w = c.width, h = c.height
        var planes: [Plane] = []
        for (ch, expected) in electrons.enumerated() {
            var out = [Float](repeating: 0, count: w * h)
            out.withUnsafeMutableBufferPointer { o in
                let base = SharedPointer(base: o.baseAddress!)
                expected.withUnsafeBufferPointer { e in
                    let source = UnsafeSendable(e)
                    DispatchQueue.concurrentPerform(iterations: h) { y in
                        var rng = SplitMix64(seed: c.seed, stream: kind << 40 | UInt64(index), UInt64(ch * h + y))
                        var gauss = GaussianSource()
                        for x in 0..<w {
                            let mean = Double(source.buffer[y * w + x])
                            let shot = mean > 0 ? mean.squareRoot() * Double(gauss.next(&rng)) : 0
                            let read = c.readNoise * Double(gauss.next(&rng))
                            let adu = (c.biasLevel + (mean + shot + read) / c.gain).rounded()
                            base.base[y * w + x] = Float(min(65535, max(0, adu)) / 65535)
                        }
                    }
                }
            }
            planes.append(Plane(width: w, height: h, pixels: out))
        }
        return Image(width: w, height: h, planes: planes)
    }
}

/// A read-only buffer shared by the rows of one parallel loop.
private struct UnsafeSendable: @unchecked Sendable {
    let buffer: UnsafeBufferPointer<Float>
    init(_ buffer: UnsafeBufferPointer<Float>) { self.buffer = buffer }
}
