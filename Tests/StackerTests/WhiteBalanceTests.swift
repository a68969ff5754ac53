import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

/// `--wb`: white balance on the mosaic, then a camera raw's matrix.
@Suite("White balance of camera raws")
struct WhiteBalanceTests {
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
        let w = scene.width, h = scene.height
        // The camera sees the sRGB truth times its neutral response (ColorMatrix1
        // is XYZ → linear sRGB, so LibRaw's camera → sRGB matrix is the identity).
        let neutral: [Double] = [0.5, 1, 0.8]
        let shifts: [(Double, Double)] = [(0, 0), (1, 0), (0, 1), (-1, 1)]
        var rng = TestRandom(seed: 2532)
        var paths: [String] = []
        for (k, (dx, dy)) in shifts.enumerated() {
            let samples = (0..<(w * h)).map { i -> UInt16 in
                let x = i % w, y = i / w, c = BayerPattern.rggb.channel(x: x, y: y)
                let v = scene.value(c, Double(x) + dx, Double(y) + dy) * neutral[c] + 0.004 * rng.gaussian()
                return UInt16(min(max(v * 65535, 0), 65535).rounded())
            }
            var dng = HandMadeDNG(width: w, height: h)
            dng.asShotNeutral = neutral
            let path = folder + "/wb\(k).dng"
            try Data(dng.bytes(samples: samples)).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
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
}
