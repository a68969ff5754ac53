import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

/// `--wb`: white balance on the mosaic, then a camera raw's matrix.
@Suite("White balance of camera raws")
struct WhiteBalanceTests {
    /// An RGGB DNG burst of `scene` in `folder`: frame k displaced by
    /// `shifts[k]`, seen through the camera's `response` to grey (with
    /// noise), and recording `asShot[k]` as its AsShotNeutral.
    static func burst(_ scene: RAWCodecTests.Scene, shifts: [(Double, Double)], response: [Double], asShot: [[Double]],
                      seed: UInt64, in folder: String) throws -> [String] {
        let w = scene.width, h = scene.height
        var rng = TestRandom(seed: seed)
        return try zip(shifts, asShot).enumerated().map { k, frame in
            let ((dx, dy), neutral) = frame
            let samples = (0..<(w * h)).map { i -> UInt16 in
                let x = i % w, y = i / w, c = BayerPattern.rggb.channel(x: x, y: y)
                let v = scene.value(c, Double(x) + dx, Double(y) + dy) * response[c] + 0.004 * rng.gaussian()
                return UInt16(min(max(v * 65535, 0), 65535).rounded())
            }
            var dng = HandMadeDNG(width: w, height: h)
            dng.asShotNeutral = neutral
            let path = folder + "/wb\(k).dng"
            try Data(dng.bytes(samples: samples)).write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    @Test("grey world finds the multipliers of a colour cast on a flat mosaic, and balancing makes it grey")
    func greyWorld() throws {
        let w = 16, h = 12
        let cast: [Float] = [0.25, 0.5, 0.4]
        for pattern in BayerPattern.allCases {
            let mosaic = Plane(width: w, height: h, pixels: (0..<(w * h)).map { cast[pattern.channel(x: $0 % w, y: $0 / w)] })
            let m = try #require(RawColour.multipliers(.auto, mosaic: mosaic, pattern: pattern, raw: nil))
            #expect(abs(m[0] - 2) < 1e-6 && m[1] == 1 && abs(m[2] - 1.25) < 1e-6, "\(pattern): \(m)")
            let grey = RawColour.balanced(mosaic, pattern: pattern, multipliers: m)
            #expect(grey.pixels.allSatisfy { abs($0 - 0.5) < 1e-6 })
            #expect(RawColour.multipliers(.camera, mosaic: mosaic, pattern: pattern, raw: nil) == nil)
            #expect(RawColour.multipliers(.none, mosaic: mosaic, pattern: pattern, raw: nil) == nil)
        }
    }

    @Test("a DNG burst shot under a colour cast: the as-shot balance and matrix bring the stack back to the sRGB truth")
    func asShot() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(folder) }
        let scene = RAWCodecTests.Scene(seed: 2531)
        // The camera sees the sRGB truth times its neutral response (ColorMatrix1
        // is XYZ → linear sRGB, so LibRaw's camera → sRGB matrix is the identity).
        let neutral: [Double] = [0.5, 1, 0.8]
        let shifts: [(Double, Double)] = [(0, 0), (1, 0), (0, 1), (-1, 1)]
        let paths = try Self.burst(scene, shifts: shifts, response: neutral, asShot: shifts.map { _ in neutral },
                                   seed: 2532, in: folder)
        let matrix = try #require(try ImageFile.read(paths[0]).raw?.cameraToSRGB)
        let identity: [Float] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
        #expect(zip(matrix, identity).allSatisfy { abs($0 - $1) < 1e-3 }, "camera → sRGB \(matrix)")
        var options = StackOptions()
        options.mode = .median
        options.threads = 2
        let truth = scene.truth()
        let camera = ImageMetrics.psnr(try stack(paths.map { FrameSource.path($0) }, options: options).image, truth, border: 8)
        options.whiteBalance = .none
        let none = ImageMetrics.psnr(try stack(paths.map { FrameSource.path($0) }, options: options).image, truth, border: 8)
        print("White balance: as shot \(camera) dB, none \(none) dB against the sRGB truth")
        #expect(camera > 40 && camera > none + 10, "as shot \(camera) dB, none \(none) dB")
    }

    @Test("a burst whose auto white balance drifted: every raw takes the reference frame's as-shot balance, and the report records it")
    func burstTakesTheReferenceBalance() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(folder) }
        let scene = RAWCodecTests.Scene(seed: 2561)
        // The camera's true response to grey; the as-shot neutral each frame
        // records drifts around it (frame 0's is right).
        let response: [Double] = [0.5, 1, 0.8]
        let asShot: [[Double]] = [[0.5, 1, 0.8], [0.65, 1, 0.6], [0.4, 1, 1.0], [0.7, 1, 0.7], [0.45, 1, 0.95]]
        let paths = try Self.burst(scene, shifts: asShot.map { _ in (0, 0) }, response: response, asShot: asShot,
                                   seed: 2562, in: folder)
        let truth = scene.truth()
        var options = StackOptions()
        // The average: per-frame balances would shift its colour (R/G by −3 %
        // around frame 0, the median of those tints would hide that).
        options.mode = .average
        options.alignment = .none
        options.threads = 2
        for reference in [0, 1] {
            options.referenceIndex = reference
            let result = try stack(paths.map { FrameSource.path($0) }, options: options)
            // The reference's multipliers, 1 / neutral, for every frame: the
            // stack is the truth times response / that neutral, per channel.
            let expected = (0..<3).map { response[$0] / asShot[reference][$0] }
            let balance = CFAFlatTests.balance(result.image, truth).enumerated().map { $1 / expected[$0] }
            let error = balance.map { abs($0 - 1) }.max()!
            let recorded = try #require(result.metadata.whiteBalance)
            print("Burst white balance, reference \(reference): R/G, B/G against the reference's balance \(balance), worst \(error); recorded \(recorded)")
            // Per-frame balances would mix the drifted tints (R/G off by up to
            // 30 % in single frames, 3 % and 26 % in the two averages); one
            // balance leaves quantisation and debayer interpolation only.
            #expect(error < 0.005, "reference \(reference): balance \(balance)")
            #expect(zip(recorded, asShot[reference]).allSatisfy { abs(Double($0) * $1 - 1) < 1e-3 }, "recorded \(recorded)")
            let json = result.report(output: folder + "/out.tif").json
            #expect(json.contains("\"whiteBalance\": [\(recorded.map { JSONText.number(Double($0)) }.joined(separator: ", "))]"))
        }
    }
}
