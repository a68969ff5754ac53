import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

/// A small synthetic sensor: sky, vignetting, bias pattern, dark current and
/// hot pixels, from which bias, dark, flat and light frames are drawn.
struct SyntheticSensor {
    let width = 192, height = 128
    /// Hot pixels (index, value in the dark) and cold pixels (index).
    let hot: [(Int, Float)]
    let cold: [Int]
    let bias: [Float], darkCurrent: [Float], vignetting: [Float], sky: [Float]
    let readNoise: Float = 0.002

    init(seed: UInt64) {
        var rng = TestRandom(seed: seed)
        let n = width * height
        var hot: [(Int, Float)] = [], cold: [Int] = []
        var used = Set<Int>()
        while hot.count < 40 {
            let i = rng.int(in: 0...(n - 1))
            if used.insert(i).inserted { hot.append((i, Float(0.2 + 0.5 * rng.uniform()))) }
        }
        while cold.count < 10 {
            let i = rng.int(in: 0...(n - 1))
            if used.insert(i).inserted { cold.append(i) }
        }
        self.hot = hot
        self.cold = cold
        let (w, h) = (width, height)
        let cx = Double(w - 1) / 2, cy = Double(h - 1) / 2
        let rmax = (cx * cx + cy * cy).squareRoot()
        var bias = [Float](repeating: 0, count: n), dark = bias, vig = bias, sky = bias
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                // A column pattern in the bias, as read-out amplifiers leave.
                bias[i] = 0.05 + 0.004 * Float(x % 7) / 6
                dark[i] = 0.01
                let dx = Double(x) - cx, dy = Double(y) - cy
                let r2: Double = (dx * dx + dy * dy) / (rmax * rmax)
                vig[i] = Float(1 - 0.3 * r2)          // 30 % falloff in the corners
                // A checkerboard of 16 px squares, to see structure survive.
                sky[i] = (x / 16 + y / 16) % 2 == 0 ? 0.25 : 0.2
            }
        }
        for (i, v) in hot { dark[i] += v }
        self.bias = bias
        self.darkCurrent = dark
        self.vignetting = vig
        self.sky = sky
    }

    /// One frame: `signal · vignetting + dark · darkScale + bias` plus read noise.
    func frame(signal: [Float]?, darkScale: Float, seed: UInt64) -> Image {
        var rng = TestRandom(seed: seed)
        var p = [Float](repeating: 0, count: width * height)
        for i in 0..<p.count {
            let s = signal.map { $0[i] * vignetting[i] } ?? 0
            p[i] = s + darkScale * darkCurrent[i] + bias[i] + readNoise * Float(rng.gaussian())
        }
        for i in cold { p[i] = 0 }
        return Image(width: width, height: height, planes: [Plane(width: width, height: height, pixels: p)])
    }

    /// The raw frames of each kind.
    func biasFrames(_ n: Int) -> [Image] { (0..<n).map { frame(signal: nil, darkScale: 0, seed: 100 + UInt64($0)) } }
    func darkFrames(_ n: Int) -> [Image] { (0..<n).map { frame(signal: nil, darkScale: 1, seed: 200 + UInt64($0)) } }
    func flatFrames(_ n: Int) -> [Image] {
        let even = [Float](repeating: 0.6, count: width * height)
        return (0..<n).map { frame(signal: even, darkScale: 0, seed: 300 + UInt64($0)) }
    }
    func light(seed: UInt64) -> Image { frame(signal: sky, darkScale: 1, seed: seed) }
}

/// Writes images as 16-bit PNG files into a fresh folder; returns the paths.
func writeFrames(_ images: [Image], prefix: String, folder: String) throws -> [String] {
    try images.enumerated().map { i, image in
        let path = folder + "/" + String(format: "%@_%02d.png", prefix, i)
        try ImageFile.write(image, to: path, options: EncodeOptions(bitDepth: 16))
        return path
    }
}

@Suite("Calibration")
struct CalibrationTests {
    @Test("robust statistics ignore 5 % outliers: median within 0.1 σ, σ within 10 %")
    func robustStatisticsIgnoreOutliers() {
        var rng = TestRandom(seed: 1)
        var values = (0..<100_000).map { i -> Float in
            i % 20 == 0 ? 0.9 : Float(0.3 + 0.01 * rng.gaussian())
        }
        let s = RobustStatistics.of(values: &values)
        // 5 % one-sided outliers move the median to the 0.526 quantile of the
        // Gaussian, +0.063 σ; 0.1 σ bounds that.
        #expect(abs(s.median - 0.3) < 0.001, "median \(s.median)")
        // 5 % one-sided outliers shift the MAD by about 6 %; 10 % bounds it.
        #expect(abs(s.sigma - 0.01) < 0.001, "sigma \(s.sigma)")
    }

    @Test("bias, dark and flat calibration flattens a 30 % vignetted sky to within 1 %")
    func calibrationFlattensTheField() throws {
        let sensor = SyntheticSensor(seed: 7)
        let bias = try MasterFrameTestSupport.master(sensor.biasFrames(9))
        let dark = try MasterFrameTestSupport.master(sensor.darkFrames(9))
        let flat = try MasterFrameTestSupport.master(sensor.flatFrames(9))
        let calibration = Calibration(bias: bias, dark: dark, flat: flat, cosmeticSigma: 5)
        #expect(calibration.darkIncludesBias)
        var light = sensor.light(seed: 9)
        let raw = light
        calibration.apply(to: &light)
        let rawError = Self.relativeError(raw, sensor)
        let calibratedError = Self.relativeError(light, sensor)
        // Raw: the 30 % corner falloff and the pedestal leave blocks 15 % off
        // even after the best global gain; 10 % is the bound. Calibrated:
        // what is left is read noise (0.002 on 0.2, 1 %, averaged over 16×16
        // blocks to well below that) and the masters' own noise.
        #expect(rawError > 0.1, "raw block error \(rawError)")
        #expect(calibratedError < 0.01, "calibrated block error \(calibratedError)")
    }

    @Test("cosmetic correction finds every hot and cold pixel of the dark and repairs them in the light")
    func cosmeticCorrectionRepairsDefects() throws {
        let sensor = SyntheticSensor(seed: 11)
        let dark = try MasterFrameTestSupport.master(sensor.darkFrames(9))
        let map = DefectMap(dark: dark, sigma: 5)
        #expect(Set(map.hot) == Set(sensor.hot.map(\.0)), "hot \(map.hot.count) of \(sensor.hot.count)")
        #expect(Set(map.cold) == Set(sensor.cold), "cold \(map.cold.count) of \(sensor.cold.count)")

        let bias = try MasterFrameTestSupport.master(sensor.biasFrames(9))
        let without = Calibration(bias: bias, dark: dark, flat: nil, cosmeticSigma: nil)
        let with = Calibration(bias: bias, dark: dark, flat: nil, cosmeticSigma: 5)
        var a = sensor.light(seed: 13), b = a
        without.apply(to: &a)
        with.apply(to: &b)
        // Cold pixels read 0 in the light: without repair they stay ≈ −0.06
        // after the offset is subtracted; repaired they match the sky.
        let defects = sensor.hot.map(\.0) + sensor.cold
        let sky = defects.map { sensor.sky[$0] * sensor.vignetting[$0] }
        let errWithout = zip(defects, sky).map { abs(a.planes[0].pixels[$0] - $1) }.max() ?? 0
        let errWith = zip(defects, sky).map { abs(b.planes[0].pixels[$0] - $1) }.max() ?? 0
        #expect(errWithout > 0.1, "unrepaired max error \(errWithout)")
        // Repaired from neighbours that differ by the checkerboard step at most (0.05).
        #expect(errWith < 0.06, "repaired max error \(errWith)")
    }

    @Test("a bias-subtracted master dark is recognised and gives the same calibration as a raw one")
    func biasSubtractedDarkIsRecognised() throws {
        let sensor = SyntheticSensor(seed: 17)
        let bias = try MasterFrameTestSupport.master(sensor.biasFrames(9))
        let dark = try MasterFrameTestSupport.master(sensor.darkFrames(9))
        var thermal = dark
        for i in 0..<thermal.planes[0].pixels.count { thermal.planes[0].pixels[i] -= bias.planes[0].pixels[i] }
        let raw = Calibration(bias: bias, dark: dark, flat: nil, cosmeticSigma: nil)
        let subtracted = Calibration(bias: bias, dark: thermal, flat: nil, cosmeticSigma: nil)
        #expect(raw.darkIncludesBias)
        #expect(!subtracted.darkIncludesBias)
        var a = sensor.light(seed: 19), b = a
        raw.apply(to: &a)
        subtracted.apply(to: &b)
        // The same arithmetic in a different order: equal to float rounding.
        let diff = zip(a.planes[0].pixels, b.planes[0].pixels).map { abs($0 - $1) }.max() ?? 1
        #expect(diff < 1e-5, "max difference \(diff)")
    }

    @Test("masters built from files match masters built in memory, and a wrong-size frame is named")
    func mastersFromFiles() throws {
        let sensor = SyntheticSensor(seed: 23)
        let folder = try TestFiles.temporaryFolder("calib")
        defer { TestFiles.remove(folder) }
        try FileManager.default.createDirectory(atPath: folder + "/darks", withIntermediateDirectories: true)
        let darks = sensor.darkFrames(5)
        _ = try writeFrames(darks, prefix: "dark", folder: folder + "/darks")
        let fromFolder = try MasterFrame.build(
            paths: [folder + "/darks"], role: "dark", kernel: .median, width: sensor.width, height: sensor.height,
            channels: 1, maxPixels: 1 << 30, memoryLimit: 1 << 30, temporaryDirectory: folder, threads: 2)
        let inMemory = try MasterFrameTestSupport.master(darks.map(MasterFrameTestSupport.quantised), kernel: .median)
        #expect(fromFolder == inMemory)

        let small = Image(width: 10, height: 10, channels: 1, repeating: 0.1)
        let odd = try writeFrames([small], prefix: "odd", folder: folder)[0]
        #expect {
            try MasterFrame.build(paths: [folder + "/darks", odd], role: "dark", kernel: .median,
                                  width: sensor.width, height: sensor.height, channels: 1, maxPixels: 1 << 30,
                                  memoryLimit: 1 << 30, temporaryDirectory: folder, threads: 2)
        } throws: { error in
            guard let e = error as? StackerError else { return false }
            return e.path == odd && e.reason.contains("dark frame is 10×10")
        }
    }
}

/// Builds masters in memory through the same frame store the pipeline uses.
enum MasterFrameTestSupport {
    static func master(_ frames: [Image], kernel: RobustKernel = .sigmaClip) throws -> Image {
        let f = frames[0]
        let store = try FrameStore(width: f.width, height: f.height, channels: f.channels, frameCount: frames.count,
                                   memoryLimit: 1 << 30, temporaryDirectory: NSTemporaryDirectory())
        let full = Plane(width: f.width, height: f.height, repeating: 1)
        for (i, frame) in frames.enumerated() { try store.store(frame: i, planes: frame.planes, coverage: full) }
        return try store.reduce(kernel, weights: [Float](repeating: 1, count: frames.count), threads: 2).image
    }

    /// The image as a 16-bit file holds it.
    static func quantised(_ image: Image) -> Image {
        var out = image
        for c in 0..<out.channels {
            out.planes[c].pixels = out.planes[c].pixels.map { Float(FrameStore.quantize($0)) / 65535 }
        }
        return out
    }
}

extension CalibrationTests {
    /// The largest relative deviation of 16×16 block means from the true
    /// (un-vignetted) sky, over the whole frame, after one global gain (a
    /// flat normalised to mean 1 keeps the light's mean level, which is the
    /// sky times the mean vignetting).
    static func relativeError(_ image: Image, _ sensor: SyntheticSensor) -> Double {
        var worst = 0.0
        let p = image.planes[0].pixels
        let gain = p.reduce(0.0) { $0 + Double($1) } / sensor.sky.reduce(0.0) { $0 + Double($1) }
        for by in stride(from: 0, to: sensor.height - 15, by: 16) {
            for bx in stride(from: 0, to: sensor.width - 15, by: 16) {
                var sum = 0.0, truth = 0.0
                for y in by..<(by + 16) {
                    for x in bx..<(bx + 16) {
                        let i = y * sensor.width + x
                        if sensor.hot.contains(where: { $0.0 == i }) || sensor.cold.contains(i) { continue }
                        sum += Double(p[i])
                        truth += Double(sensor.sky[i])
                    }
                }
                worst = max(worst, abs(sum / gain - truth) / truth)
            }
        }
        return worst
    }
}
