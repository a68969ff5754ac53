import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

/// Integer FITS data that fill a small part of their type's range: the
/// report records the data range, a warning says so, and
/// `--output-scale data` stretches the result to the output's full range.
@Suite("Narrow-range integer FITS")
struct NarrowRangeFITSTests {
    static let width = 64, height = 48

    /// Three 16-bit frames (BZERO 32768) whose values span about 1000…3000
    /// ADU, written to `folder`, with each frame's samples.
    static func frames(in folder: String) throws -> (paths: [String], samples: [[UInt16]]) {
        var rng = TestRandom(seed: 2571)
        var paths: [String] = [], all: [[UInt16]] = []
        for k in 0..<3 {
            let samples = (0..<(width * height)).map { i -> UInt16 in
                let x = Double(i % width) / Double(width), y = Double(i / width) / Double(height)
                return UInt16((1000 + 1800 * x * y + 150 * x + 40 * rng.gaussian()).rounded())
            }
            let path = folder + "/narrow\(k).fits"
            try Data(HandMadeFITS.file(cards: HandMadeFITS.cards(bitpix: 16, axes: [width, height]) + [FITSCaptureTests.bzero],
                                       data: FITSCaptureTests.data16(samples, width: width, bottomUp: true)))
                .write(to: URL(fileURLWithPath: path))
            paths.append(path)
            all.append(samples)
        }
        return (paths, all)
    }

    /// The frames at `paths` stacked unaligned under `scale`, with the options used.
    static func stacked(_ paths: [String], scale: OutputScale) throws -> (StackResult, StackOptions) {
        var options = StackOptions()
        options.alignment = .none
        options.threads = 2
        options.outputScale = scale
        return (try stack(paths.map { FrameSource.path($0) }, options: options), options)
    }

    /// The number after `"key": ` in `json`, the first time it appears after `from`.
    static func number(_ key: String, in json: String, after from: String = "") -> Double? {
        let start = from.isEmpty ? json.startIndex : (json.range(of: from)?.upperBound ?? json.endIndex)
        guard let r = json.range(of: "\"\(key)\": ", range: start..<json.endIndex) else { return nil }
        return Double(json[r.upperBound...].prefix { "-0123456789.e".contains($0) })
    }

    @Test("the report records each frame's stored range and the stack's in ADU, and one warning names the narrow 16-bit reference")
    func reportAndWarning() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(folder) }
        let (paths, samples) = try Self.frames(in: folder)
        let (result, options) = try Self.stacked(paths, scale: .native)
        for (k, frame) in result.frames.enumerated() {
            let range = try #require(frame.storedRange)
            #expect(range == Double(samples[k].min()!)...Double(samples[k].max()!), "frame \(k): \(range)")
        }
        let narrow = result.warnings.filter { $0.contains("under 1/16 of the range") }
        #expect(narrow.count == 1 && narrow[0].hasPrefix(paths[0]), "\(result.warnings)")

        // The stack's range in ADU: the mean of the three frames' samples.
        let mean = (0..<(Self.width * Self.height)).map { i in samples.map { Double($0[i]) }.reduce(0, +) / 3 }
        let json = result.report(output: folder + "/out.fits").json
        let low = try #require(Self.number("min", in: json, after: "dataRange")),
            high = try #require(Self.number("max", in: json, after: "dataRange"))
        print("Narrow FITS: stack range \(low)…\(high) ADU, mean of frames \(mean.min()!)…\(mean.max()!)")
        // Float sums of values / 65535 carry ~1e-7 relative error: 0.01 ADU.
        #expect(abs(low - mean.min()!) < 0.01 && abs(high - mean.max()!) < 0.01, "\(low)…\(high)")
        #expect(Self.number("fullScale", in: json) == 65535)
        #expect(Self.number("dataMin", in: json) == Double(samples[0].min()!))
        #expect(!json.contains("outputScale"))

        // A frame using most of the range gives no warning.
        #expect(StackPipeline.narrowRangeWarning(0...60000, bitDepth: 16, options: options, name: "x") == nil)
        #expect(StackPipeline.narrowRangeWarning(0...4000, bitDepth: 16, options: options, name: "x") != nil)
        #expect(StackPipeline.narrowRangeWarning(0...4000, bitDepth: 32, options: options, name: "x") == nil)
    }

    @Test("--output-scale data stretches the stack's min…max to the full 16-bit range linearly; native keeps the ADU")
    func stretch() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(folder) }
        let (paths, _) = try Self.frames(in: folder)
        let native = try Self.stacked(paths, scale: .native).0
        try native.write(to: folder + "/native.fits")
        let data = try Self.stacked(paths, scale: .data).0
        #expect(!data.warnings.contains { $0.contains("under 1/16") }, "\(data.warnings)")
        #expect(data.report(output: "x").json.contains("\"outputScale\": \"data\""))
        try data.write(to: folder + "/data.fits")

        let stacked = native.image.planes[0].pixels
        let range = try #require(native.image.dataRange)
        let nativeBack = try ImageFile.read(folder + "/native.fits").image.planes[0].pixels
        let dataBack = try ImageFile.read(folder + "/data.fits").image.planes[0].pixels
        // Native: each value within half an ADU of the stack's.
        let nativeError = zip(nativeBack, stacked).map { Double(abs($0 - $1)) * 65535 }.max()!
        // Data: 0 and 65535 reached, and every value the linear stretch of the stack's, within half a step.
        let stretchError = zip(dataBack, stacked).map { back, v in
            Double(abs(back - (v - range.lowerBound) / (range.upperBound - range.lowerBound))) * 65535
        }.max()!
        print("Output scale: native error \(nativeError) ADU, stretched \(dataBack.min()!)…\(dataBack.max()!), stretch error \(stretchError) steps")
        #expect(nativeError <= 0.5 + 1e-3, "native error \(nativeError) ADU")
        #expect(dataBack.min()! == 0 && dataBack.max()! == 1)
        #expect(stretchError <= 0.5 + 1e-2, "stretch error \(stretchError) steps")
        // The native output spans under 1/16 of the range, the stretched all of it.
        #expect(nativeBack.max()! - nativeBack.min()! < 1 / 16)
    }

    @Test("an image's data range is its least and greatest finite sample, past NaN and ±∞, in whole vectors and tails")
    func dataRangeSkipsNonFinite() throws {
        var rng = TestRandom(seed: 2572)
        for count in [0, 5, 16, 37, 1000] {
            var a = (0..<count).map { _ in Float(rng.uniform() * 4 - 2) }
            var b = (0..<count).map { _ in Float(rng.uniform()) }
            for i in Swift.stride(from: 0, to: count, by: 7) { a[i] = .nan }
            for i in Swift.stride(from: 3, to: count, by: 11) { b[i] = i % 2 == 0 ? .infinity : -.infinity }
            let image = Image(width: count, height: 1, planes: [Plane(width: count, height: 1, pixels: a),
                                                                 Plane(width: count, height: 1, pixels: b)])
            let finite = (a + b).filter(\.isFinite)
            if let low = finite.min(), let high = finite.max() {
                #expect(image.dataRange == low...high, "\(count) samples")
            } else {
                #expect(image.dataRange == nil, "\(count) samples")
            }
        }
        let blank = Image(width: 17, height: 1, planes: [Plane(width: 17, height: 1, pixels: [Float](repeating: .nan, count: 17))])
        #expect(blank.dataRange == nil)
    }
}
