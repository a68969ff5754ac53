import Foundation
import Testing
import Registration
import SceneGen
@testable import Stacker
import TestSupport

/// Masked registration (issue 22, item 4) on a generated street scene with a
/// known shift and on the real scikit-image fan pair, through the
/// pipeline's registrar (`FrameRegistrar`).
@Suite("Masked registration on generated and real frames")
struct MaskedSceneRegistrationTests {
    static let fixtures = TestFiles.realFixtures

    /// `image` with every pixel outside a disc of radius `radius` × width
    /// around the centre set to 0 in every channel (vignetted corners, or the
    /// surround of a derotated frame).
    static func vignetted(_ image: Image, radius: Double) -> Image {
        var out = image
        let w = image.width, h = image.height
        for c in out.planes.indices {
            for y in 0..<h {
                for x in 0..<w {
                    let ux = Double(x) - Double(w) / 2, uy = Double(y) - Double(h) / 2
                    if (ux * ux + uy * uy).squareRoot() >= radius * Double(w) { out.planes[c][x, y] = 0 }
                }
            }
        }
        return out
    }

    @Test("a street scene under the same black surround in both frames, shifted (−37.4, 28.9): within 0.05 px")
    func generatedStreetUnderFill() throws {
        var config = SceneConfig.street
        config.width = 640
        config.height = 480
        config.frameCount = 2
        config.seed = 11
        config.explicitShifts = [FrameShift(dx: 0, dy: 0), FrameShift(dx: -37.4, dy: 28.9)]
        let scene = SceneGenerator.render(config)
        let frames = scene.frames.map { Self.vignetted($0, radius: 0.42) }
        let registrar = try FrameRegistrar(reference: frames[0].luma, alignment: .translation,
                                           minimumScore: TranslationOptions.defaultMinimumScore)
        let e = try registrar.estimate(.floats(frames[1].luma))
        let (dx, dy) = e.transform.translation
        let truth = scene.shifts[1]
        print("street under fill: (\(dx), \(dy)) truth (\(truth.dx), \(truth.dy)) score \(e.score) agreement \(e.overlapAgreement ?? -1)")
        #expect(e.isAccepted == true)
        #expect(abs(dx - truth.dx) < 0.05 && abs(dy - truth.dy) < 0.05, "(\(dx), \(dy))")
    }

    @Test("scikit-image's fan pair (Padfield's data): (−130, 130) within 0.05 px, accepted")
    func realFanPair() throws {
        let reference = try ImageFile.read(Self.fixtures + "/skimage-OriginalX130Y130.png").image.luma
        let frame = try ImageFile.read(Self.fixtures + "/skimage-TransformedX130Y130.png").image.luma
        let registrar = try FrameRegistrar(reference: reference, alignment: .translation,
                                           minimumScore: TranslationOptions.defaultMinimumScore)
        let e = try registrar.estimate(.floats(frame))
        let (dx, dy) = e.transform.translation
        print("skimage X130Y130: (\(dx), \(dy)) score \(e.score) agreement \(e.overlapAgreement ?? -1)")
        #expect(e.isAccepted == true)
        #expect(abs(dx + 130) < 0.05 && abs(dy - 130) < 0.05, "(\(dx), \(dy))")
    }
}
