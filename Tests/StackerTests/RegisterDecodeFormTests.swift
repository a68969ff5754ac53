import Foundation
import Registration
import SceneGen
import Stacker
import TestSupport
import Testing

/// `register` decodes frames as the mode it is given would, so the
/// transforms it writes are the ones a stack in that mode measures: what
/// makes row-band shards fed a transforms file equal a one-shot stack.
@Suite("register decodes as the stack's mode")
struct RegisterDecodeFormTests {
    static let width = 160, height = 120

    /// Frame → reference homographies of a small handheld burst.
    static let truth: [Transform] = [
        .identity,
        Transform(matrix: [1.003, 0.010, 2.6, -0.008, 0.998, -1.9, 3.1e-5, -2.0e-5, 1]),
        Transform(matrix: [0.996, -0.007, -3.1, 0.006, 1.002, 1.4, -2.5e-5, 3.0e-5, 1]),
    ]

    /// The street scene's clean view seen through each of `truth`, with a
    /// little noise so that the JPEG's Y and the luma of its RGB round apart.
    static func frames() -> [Image] {
        var config = SceneConfig.street
        config.width = width
        config.height = height
        config.frameCount = 1
        config.seed = 11
        let view = SceneGenerator.render(config).groundTruth
        var random = TestRandom(seed: 3)
        return truth.map { t in
            var warped = Warper.warp(view.planes, by: t, width: width, height: height, interpolation: .bicubic).planes
            for c in warped.indices {
                for k in warped[c].pixels.indices { warped[c].pixels[k] += Float(random.symmetric(0.02)) }
            }
            return Image(width: width, height: height, planes: warped)
        }
    }

    @Test("a 4:4:4 and a 4:2:0 JPEG burst: register's homographies are each mode's own, to the bit",
          arguments: [95, 80])
    func transformsMatchTheMode(quality: Int) throws {
        let folder = try TestFiles.temporaryFolder("register-form-\(quality)")
        defer { TestFiles.remove(folder) }
        var paths: [String] = []
        for (i, frame) in Self.frames().enumerated() {
            let path = "\(folder)/frame_\(i).jpg"
            try ImageFile.write(frame, to: path, options: EncodeOptions(quality: quality))
            paths.append(path)
        }
        let frames = FrameSource.frames(in: paths)
        for mode in [StackMode.median, .mode, .average] {
            var options = StackOptions()
            options.alignment = .homography
            options.mode = mode
            options.threads = 2
            let registered = try register(frames, options: options).frames
            let stacked = try stack(frames, options: options).frames
            #expect(registered.map(\.used) == stacked.map(\.used), "\(mode) at q\(quality)")
            #expect(registered.allSatisfy { $0.used }, "\(mode) at q\(quality)")
            #expect(registered.map(\.transform) == stacked.map(\.transform), "\(mode) at q\(quality)")
        }
    }
}
