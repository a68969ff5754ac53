public import Stacker

/// A camera sensor at base ISO, as a raw file records it: what turns a
/// rendered frame into the 14-bit samples a camera would have written, so
/// that a generated raw compresses (and decodes) as a camera's does.
///
/// The model, per pixel of the RGGB mosaic (`rggbSamples`):
/// 1. the frame's value `v` (0…1, sRGB-encoded as SceneGen renders) is
///    made linear with the sRGB transfer, and scaled by the channel's
///    response to the illuminant (`neutral`, the DNG's AsShotNeutral), so
///    red and blue collect fewer electrons than green as under daylight;
/// 2. the signal in electrons is `S = linear · neutral · fullWell`;
/// 3. the noise is photon shot noise (Poisson, drawn as a Gaussian of
///    variance `S`: exact enough above a few electrons) plus read noise of
///    `readNoise` electrons rms, independent per pixel and frame;
/// 4. the sample is `blackLevel + S' / gain`, rounded and clipped to
///    `0…whiteLevel`, where `gain = fullWell / (whiteLevel − blackLevel)`
///    electrons per ADU (about 3.2 with the defaults), so a full well just
///    reaches the white level.
///
/// The defaults are typical of 24 MP full-frame sensors at base ISO:
/// published sensor measurements give full wells of about 40–60 ke⁻ and
/// read noise of 2–6 e⁻ for them; their 14-bit raws have black levels of
/// 512–1024 ADU and a white level of 16383. Shot noise dominates above
/// about 10 e⁻ (σ = √S), so a mid-grey (S ≈ 9,000 e⁻) has σ ≈ 30 ADU.
public struct CameraSensor: Sendable, Hashable {
    /// Electrons at saturation.
    public var fullWell: Double = 50_000
    /// Read noise, electrons rms.
    public var readNoise: Double = 3
    /// The sample of no light (the same for every CFA position).
    public var blackLevel: UInt16 = 1024
    /// The largest sample (14 bits).
    public var whiteLevel: UInt16 = 16383
    /// The channels' response to a neutral grey (R, G, B), as AsShotNeutral.
    public var neutral: [Double] = [0.5, 1, 0.8]

    public init() {}

    /// Electrons per ADU.
    public var gain: Double { fullWell / Double(Int(whiteLevel) - Int(blackLevel)) }

    /// A DNG file layout that declares this sensor's levels and neutral.
    public func dngFile(width: Int, height: Int) -> DNGFile {
        DNGFile(width: width, height: height, blackLevels: Array(repeating: blackLevel, count: 4),
                whiteLevel: UInt32(whiteLevel), asShotNeutral: neutral)
    }

    /// The RGGB mosaic of a 3-channel `image` (0…1, sRGB-encoded) as this
    /// sensor records it (see the type's documentation), row 0 first, for
    /// `DNGFile.bytes(samples:)`. The noise is drawn from `seed`, one
    /// stream per row, so the same seed gives the same samples.
    public func rggbSamples(_ image: Image, seed: UInt64) -> [UInt16] {
        precondition(image.channels == 3, "an RGGB mosaic needs an RGB image, got \(image.channels) channel(s)")
        let w = image.width
        let scale = neutral.map { $0 * fullWell }
        let toADU = 1 / gain, black = Double(blackLevel), white = Double(whiteLevel)
        let readVariance = readNoise * readNoise
        return [UInt16](unsafeUninitializedCapacity: image.pixelCount) { out, count in
            for y in 0..<image.height {
                var rng = SplitMix64(seed: seed, stream: 0x5345_4E53_4F52, UInt64(y)) // "SENSOR"
                var gauss = GaussianSource()
                for x in 0..<w {
                    let c = (y & 1) + (x & 1)  // 0 red, 1 green, 2 blue
                    let v = Double(min(1, max(0, image.planes[c].pixels[y * w + x])))
                    let electrons = Self.linear(v) * scale[c]
                    let noisy = electrons + (electrons + readVariance).squareRoot() * Double(gauss.next(&rng))
                    out[y * w + x] = UInt16(min(white, max(0, (black + noisy * toADU).rounded())))
                }
            }
            count = image.pixelCount
        }
    }

    /// The sRGB transfer undone (IEC 61966-2-1).
    static func linear(_ v: Double) -> Double {
        v <= 0.04045 ? v / 12.92 : Math.exp(2.4 * Math.log((v + 0.055) / 1.055))
    }
}

// References
// - IEC 61966-2-1:1999, the sRGB transfer function.
// - Janesick, "Photon Transfer" (SPIE, 2007): shot noise σ = √S electrons,
//   read noise added in quadrature, gain in e⁻/ADU.
