import Foundation
import Registration
@testable import Stacker
import Testing

/// A run's report fed back as `--transforms` must reproduce the run: the
/// numbers read back to the same bits, the stack to the same bytes, and the
/// reported homographies place a frame's corners where the truth does.
@Suite("Transforms round trip")
struct TransformsRoundTripTests {
    static let width = 640, height = 480

    /// An analytic scene defined at every real point, so a frame seen through
    /// any homography is rendered exactly: gratings of 4–37 px wavelength in
    /// many directions, and soft-edged blocks.
    static func scene(_ x: Double, _ y: Double) -> Float {
        var v = 0.5
        for k in 0..<12 {
            let angle = Double(k) * 2.399963, wavelength = 4.0 + Double((k * 7) % 12) * 3
            let u = (x * cos(angle) + y * sin(angle)) * 2 * Double.pi / wavelength
            v += 0.025 * sin(u + Double(k))
        }
        for (x0, y0, x1, y1, a): (Double, Double, Double, Double, Double) in
            [(60, 50, 170, 140, 0.15), (400, 80, 520, 230, -0.12), (250, 300, 380, 420, 0.1), (520, 330, 600, 450, -0.15)] {
            let inside = min(x - x0, x1 - x, y - y0, y1 - y)
            v += a / (1 + exp(-inside))
        }
        return Float(v)
    }

    /// Frame → reference homographies of a handheld burst: shake, a little
    /// rotation and scale, and perspective terms of a few 1e-5.
    static let truth: [Transform] = [
        .identity,
        Transform(matrix: [1.004, 0.012, 3.6, -0.010, 0.998, -2.2, 2.1e-5, -1.4e-5, 1]),
        Transform(matrix: [0.995, -0.008, -4.1, 0.007, 1.003, 1.7, -1.6e-5, 2.4e-5, 1]),
        Transform(matrix: [1.002, 0.005, 1.2, -0.004, 1.006, 3.9, 1.2e-5, 1.8e-5, 1]),
        Transform(matrix: [0.998, 0.010, -2.5, -0.012, 0.997, -3.1, -2.2e-5, -1.0e-5, 1]),
    ]

    /// Frame `i`: pixel (x, y) shows the reference at `truth[i]`(x, y).
    static func frame(_ i: Int) -> Image {
        var pixels = [Float](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let p = truth[i].apply(x: Double(x), y: Double(y))
                pixels[y * width + x] = scene(p.x, p.y)
            }
        }
        return Image(width: width, height: height, planes: [Plane(width: width, height: height, pixels: pixels)])
    }

    @Test("a homography burst stacked from its own report gives the same bytes, corners within 0.05 px")
    func homographyReportRoundTrip() throws {
        let frames = (0..<Self.truth.count).map { FrameSource.image(Self.frame($0)) }
        var options = StackOptions()
        options.mode = .median
        options.alignment = .homography
        options.threads = 2
        let first = try stack(frames, options: options)
        #expect(first.frames.allSatisfy { $0.used })

        let file = try TransformsFile(json: first.report(output: "out.png").json)
        for (entry, record) in zip(file.frames, first.frames) {
            #expect(entry.transform.matrix == record.transform.matrix, "numbers must read back to the same bits")
        }
        var replay = StackOptions()
        replay.mode = .median
        replay.threads = 2
        try file.apply(to: &replay, frameCount: frames.count, path: "run.json")
        let second = try stack(frames, options: replay)
        #expect(second.image == first.image)
        let encode = EncodeOptions(bitDepth: 16)
        #expect(try ImageFile.encode(second.image, format: .png, options: encode)
                == ImageFile.encode(first.image, format: .png, options: encode))

        var worst = 0.0
        let corners = [(0.0, 0.0), (Double(Self.width - 1), 0), (0, Double(Self.height - 1)),
                       (Double(Self.width - 1), Double(Self.height - 1))]
        for (entry, truth) in zip(file.frames, Self.truth) {
            for (x, y) in corners {
                let got = entry.transform.apply(x: x, y: y), want = truth.apply(x: x, y: y)
                worst = max(worst, hypot(got.x - want.x, got.y - want.y))
            }
        }
        #expect(worst < 0.05, "worst corner error \(worst) px")
    }

    @Test("a hand-written file: translations, a left-out frame, the reference")
    func handWritten() throws {
        let json = """
        {"reference": 1, "frames": [
          {"dx": 1.5, "dy": -2},
          {"transform": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]},
          {"dx": 0, "dy": 0.25, "used": false, "reason": "blurred"}
        ]}
        """
        let file = try TransformsFile(json: json)
        var options = StackOptions()
        try file.apply(to: &options, frameCount: 3, path: "t.json")
        #expect(options.referenceIndex == 1)
        #expect(options.givenTransforms == [.translation(dx: 1.5, dy: -2), .identity, .translation(dx: 0, dy: 0.25)])
        #expect(options.excludedFrames == [2: "blurred"])
        #expect(throws: StackerError.self) { try file.apply(to: &options, frameCount: 4, path: "t.json") }
    }

    @Test("malformed files are refused with where and why")
    func malformed() {
        for (text, reason) in [("{\"frames\": [", "ends where a value"), ("{\"frames\": [{\"dx\": 1}]}", "needs \"transform\""),
                               ("{\"frames\": [{\"transform\": [[1, 0], [0, 1]]}]}", "three rows"),
                               ("[1, 2]", "no \"frames\""), ("{\"frames\": []} x", "after the value"),
                               ("{\"frames\": [{\"transform\": [[0, 0, 0], [0, 0, 0], [0, 0, 1]]}]}", "not invertible")] {
            do {
                _ = try TransformsFile(json: text)
                Issue.record("accepted \(text)")
            } catch {
                #expect("\(error)".contains(reason), "\(text): \(error)")
            }
        }
    }

    @Test("JSON numbers and strings read back exactly")
    func jsonValues() throws {
        let numbers: [Double] = [1e-6, -2.345678901234567e-5, 0.1, 1.0 / 3, 123456.789, -0.0, .leastNonzeroMagnitude, 1.7976931348623157e308]
        for x in numbers {
            #expect(try JSONValue.parse(JSONText.number(x)).double == x)
        }
        let text = "tab\t quote\" slash\\ é 😀 \u{1}"
        #expect(try JSONValue.parse(JSONText.string(text)).string == text)
        #expect(try JSONValue.parse("\"\\ud83d\\ude00\"").string == "😀")
    }
}
