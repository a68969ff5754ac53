import Foundation
import Registration
import SceneGen
import Stacker
import Testing

/// `CameraSensor`: the samples of a flat frame have the model's mean and
/// variance per CFA colour, stay within the 14-bit levels, and repeat for a seed.
@Suite("CameraSensor")
struct CameraSensorTests {
    static let side = 256

    /// A flat RGB frame of sRGB-encoded `value` in every channel.
    static func flat(_ value: Float) -> Image {
        let n = side * side
        return Image(width: side, height: side, planes: (0..<3).map { _ in Plane(width: side, height: side, pixels: [Float](repeating: value, count: n)) })
    }

    /// The samples of colour `c` (0 red at even rows and columns, 1 green, 2 blue) of an RGGB mosaic.
    static func colour(_ samples: [UInt16], _ c: Int) -> [Double] {
        var out: [Double] = []
        for y in 0..<side {
            for x in 0..<side where (y & 1) + (x & 1) == c { out.append(Double(samples[y * side + x])) }
        }
        return out
    }

    @Test("a flat grey frame has the shot-plus-read-noise mean and variance in each colour")
    func meanAndVariance() {
        let sensor = CameraSensor()
        let value: Float = 0.5
        let samples = sensor.rggbSamples(Self.flat(value), seed: 3)
        // sRGB 0.5 is 0.214 linear (IEC 61966-2-1).
        let linear = pow((0.5 + 0.055) / 1.055, 2.4)
        for c in 0..<3 {
            let s = Self.colour(samples, c)
            let mean = s.reduce(0, +) / Double(s.count)
            let variance = s.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(s.count - 1)
            let electrons = linear * sensor.neutral[c] * sensor.fullWell
            let expectedMean = Double(sensor.blackLevel) + electrons / sensor.gain
            // Variance in ADU²: (shot + read²) / gain², plus 1/12 for the rounding.
            let expectedVariance = (electrons + sensor.readNoise * sensor.readNoise) / (sensor.gain * sensor.gain) + 1.0 / 12
            // 8,192–32,768 samples: the mean's standard error is under 0.4 ADU,
            // the variance's under 1.6 % (√(2/n)); 1 ADU and 6 % are 3–4 of those.
            #expect(abs(mean - expectedMean) < 1, "colour \(c): mean \(mean), model \(expectedMean)")
            #expect(abs(variance / expectedVariance - 1) < 0.06, "colour \(c): variance \(variance), model \(expectedVariance)")
        }
    }

    @Test("black stays near the black level, white clips at the white level, and a seed repeats")
    func levelsAndSeed() {
        let sensor = CameraSensor()
        let dark = sensor.rggbSamples(Self.flat(0), seed: 1)
        let darkMean = dark.map(Double.init).reduce(0, +) / Double(dark.count)
        // Read noise alone: σ = 3 e⁻ ≈ 0.95 ADU around the black level.
        #expect(abs(darkMean - Double(sensor.blackLevel)) < 0.1)
        #expect(dark.allSatisfy { abs(Int($0) - Int(sensor.blackLevel)) <= 8 })
        let white = sensor.rggbSamples(Self.flat(1), seed: 1)
        #expect(white.allSatisfy { $0 <= sensor.whiteLevel })
        // Green at full well sits at the white level; half of its samples clip.
        let greenAtWhite = Self.colour(white, 1).filter { $0 == Double(sensor.whiteLevel) }.count
        #expect(greenAtWhite > Self.side * Self.side / 2 / 3)
        let grey = Self.flat(0.3)
        #expect(sensor.rggbSamples(grey, seed: 9) == sensor.rggbSamples(grey, seed: 9))
        #expect(sensor.rggbSamples(grey, seed: 9) != sensor.rggbSamples(grey, seed: 10))
    }
}
