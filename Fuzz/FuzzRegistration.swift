// Registration mode of the fuzz harness: inputs starting with `SREG`.
//
// Layout after the tag (every byte optional; missing ones read as 0):
//   [4] reference width  = 1 + b % 64     [5] reference height = 1 + b % 64
//   [6] flags: bits 0-1 registrar (0 translation with float frames,
//       1 translation with 8-bit frames, 2 homography, 3 stars);
//       bit 2 star model affine; bit 3 the frame gets its own size from
//       [7] and [8] (otherwise the reference's)
//   [7] frame width  = 1 + b % 64         [8] frame height = 1 + b % 64
//   [9] scale exponent e: pixel = (sample - offset) / 255 · 2^(e % 41 - 20)
//   [10] offset
//   [11] options: bits 0-2 the translation upsample factor (1, 2, 4, 10,
//       20, 50, 100, 200), bits 3-5 the homography iterations per level
//       (1, 2, 3, 5, 8, 12, 20, 30); the defaults (100, 30) make the
//       upsampled DFT and the Gauss-Newton loop cost most of an execution,
//       so letting the input pick cheaper ones buys more executions
//   [12…] samples: the reference's, then the frame's, row-major, one byte
//       each; when the input is shorter they repeat from [12] (an empty
//       tail gives blank planes).
// Sides of 1…64 reach the "too small" refusals (< 16) as well as the FFT,
// pyramid and star paths, and keep one execution cheap.
//
// A registrar may refuse with a `RegistrationError` (too small, size
// mismatch); anything else must come back finite: a NaN or infinity in the
// transform, shift, score, agreement, residual or FWHM traps, and so does an
// accepted estimate below its minimum score, or a mismatched frame that was
// not refused.

import Registration

/// The tag selecting this mode.
let fuzzRegistrationTag: [UInt8] = Array("SREG".utf8)
/// Largest plane side the layout can ask for.
let fuzzRegistrationMaxSide = 64

/// The two planes and the choices an input encodes.
struct FuzzRegistrationCase {
    var reference: Plane
    var frame: Plane
    /// The frame as 8-bit samples (the raw bytes, without scale and offset).
    var frameBytes: BytePlane
    var registrar: Int
    var affine: Bool
    var translationOptions: TranslationOptions
    var homographyOptions: HomographyOptions

    /// Decodes the layout above from the bytes after the tag.
    init(_ body: ArraySlice<UInt8>) {
        let b = Array(body)
        func byte(_ i: Int) -> Int { i < b.count ? Int(b[i]) : 0 }
        let side = { (v: Int) in 1 + v % fuzzRegistrationMaxSide }
        let rw = side(byte(0)), rh = side(byte(1))
        let flags = byte(2)
        registrar = flags & 3
        affine = flags & 4 != 0
        let (fw, fh) = flags & 8 != 0 ? (side(byte(3)), side(byte(4))) : (rw, rh)
        let scale = Float(sign: .plus, exponent: byte(5) % 41 - 20, significand: 1) / 255
        let offset = Float(byte(6))
        let choices = byte(7)
        translationOptions = TranslationOptions(upsampleFactor: [1, 2, 4, 10, 20, 50, 100, 200][choices & 7])
        homographyOptions = HomographyOptions(maxIterationsPerLevel: [1, 2, 3, 5, 8, 12, 20, 30][choices >> 3 & 7])
        let samples = b.count > 8 ? Array(b[8...]) : [0]
        var next = 0
        func take(_ n: Int) -> [UInt8] {
            (0..<n).map { _ in
                defer { next = (next + 1) % samples.count }
                return samples[next]
            }
        }
        let ref = take(rw * rh), frm = take(fw * fh)
        reference = Plane(width: rw, height: rh, pixels: ref.map { (Float($0) - offset) * scale })
        frame = Plane(width: fw, height: fh, pixels: frm.map { (Float($0) - offset) * scale })
        frameBytes = BytePlane(width: fw, height: fh, pixels: frm)
    }
}

/// Runs one registrar over the pair an input describes.
func fuzzRegistration(_ body: ArraySlice<UInt8>) {
    let c = FuzzRegistrationCase(body)
    let sameSize = c.frame.width == c.reference.width && c.frame.height == c.reference.height
    do {
        switch c.registrar {
        case 0, 1:
            let registrar = try TranslationRegistrar(reference: c.reference, options: c.translationOptions)
            let e = c.registrar == 0 ? try registrar.estimate(c.frame) : try registrar.estimate(c.frameBytes)
            precondition(sameSize, "translation: a \(c.frame.width)×\(c.frame.height) frame was not refused")
            requireFinite([e.dx, e.dy, e.score] + (e.overlapAgreement.map { [$0] } ?? []), "translation estimate \(e)")
            requireFinite(e.transform.matrix, "translation transform")
            precondition(!e.isAccepted || registrar.options.accepts(score: e.score, overlapAgreement: e.overlapAgreement),
                         "translation: accepted an estimate its options reject: \(e)")
        case 2:
            let registrar = try HomographyRegistrar(reference: c.reference, options: c.homographyOptions)
            let e = try registrar.estimate(c.frame)
            precondition(sameSize, "homography: a \(c.frame.width)×\(c.frame.height) frame was not refused")
            requireFinite(e.transform.matrix + [e.score] + (e.overlapAgreement.map { [$0] } ?? [])
                          + (e.residualRMS.map { [$0] } ?? []), "homography estimate \(e)")
            precondition(e.iterations >= 0, "homography: negative iteration count")
        default:
            let registrar = try StarRegistrar(reference: c.reference,
                                              options: StarOptions(model: c.affine ? .affine : .similarity))
            for star in registrar.referenceStars {
                requireFinite([star.x, star.y], "reference star \(star)")
            }
            let e = try registrar.estimate(c.frame)
            precondition(sameSize, "stars: a \(c.frame.width)×\(c.frame.height) frame was not refused")
            requireFinite(e.transform.matrix + [e.score] + (e.fwhm.map { [$0] } ?? [])
                          + (e.residualRMS.map { [$0] } ?? []), "star estimate \(e)")
            precondition(e.starsMatched >= 0 && e.starsMatched <= e.starsFound || !e.isAccepted,
                         "stars: matched \(e.starsMatched) of \(e.starsFound)")
        }
    } catch is RegistrationError {
        // Refused with a reason (too small, size mismatch): fine.
    } catch {
        preconditionFailure("registration threw a non-RegistrationError: \(error)")
    }
}

/// Traps (so libFuzzer reports the input) unless every value is finite.
func requireFinite(_ values: [Double], _ what: @autoclosure () -> String) {
    precondition(values.allSatisfy { $0.isFinite }, "not finite: \(what())")
}
