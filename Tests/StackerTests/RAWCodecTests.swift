import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

/// Camera raws through LibRaw (`RAWCodec`), on DNG files written by hand
/// (`HandMadeDNG`): the mosaic comes back with its pattern, black and white
/// levels, orientation and colour facts; damaged, oversized and
/// metadata-only files are refused in one line; a generated burst stacks
/// in colour against its linear truth.
@Suite("Camera raw through LibRaw")
struct RAWCodecTests {
    /// DNG colour numbers (0 R, 1 G, 2 B) of a pattern, row by row.
    static func dngColours(_ pattern: BayerPattern) -> [UInt8] { pattern.channels.map { UInt8($0) } }

    static func write(_ bytes: [UInt8], _ folder: String, _ name: String) throws -> String {
        let path = folder + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("every Bayer pattern reads back: one channel, 16-bit, the pattern, per-channel black and the white level exact")
    func levelsAndPattern() throws {
        let w = 34, h = 22
        let black: [UInt16] = [512, 530, 520, 541]  // per 2 × 2 position, row by row
        let white: UInt32 = 15_000
        var rng = TestRandom(seed: 2511)
        for pattern in BayerPattern.allCases {
            var dng = HandMadeDNG(width: w, height: h, cfaPattern: Self.dngColours(pattern), blackLevels: black, whiteLevel: white)
            dng.asShotNeutral = [0.5, 1, 0.8]
            let samples = (0..<(w * h)).map { i -> UInt16 in
                let b = Int(black[((i / w) & 1) << 1 | (i % w) & 1])
                return UInt16(rng.int(in: (b - 20)...Int(white)))
            }
            let decoded = try ImageFile.decode(bytes: dng.bytes(samples: samples), path: "gen.dng")
            #expect(decoded.cfa == pattern)
            #expect(decoded.image.channels == 1 && decoded.bitDepth == 16)
            #expect(decoded.image.width == w && decoded.image.height == h)
            var worst: Float = 0
            for i in 0..<(w * h) {
                let b = Float(black[((i / w) & 1) << 1 | (i % w) & 1])
                let expected = (Float(samples[i]) - b) / (Float(white) - b)
                worst = max(worst, abs(decoded.image.planes[0].pixels[i] - expected))
            }
            #expect(worst < 1e-6, "\(pattern): worst level error \(worst)")
            let raw = try #require(decoded.raw)
            #expect(raw.make == "Stack" && !raw.demosaicedByLibRaw)
            // White balance = 1 / AsShotNeutral, normalised to green.
            let wb = try #require(raw.whiteBalance)
            #expect(abs(wb[0] - 2) < 1e-3 && wb[1] == 1 && abs(wb[2] - 1.25) < 1e-3, "white balance \(wb)")
            #expect(raw.cameraToSRGB.count == 9)
        }
    }

    @Test("the orientation turns the mosaic, and the pattern is that of the turned mosaic at every pixel")
    func orientation() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(folder) }
        // An odd width: turning moves the pattern's phase. (LibRaw takes no
        // raw under 22 pixels a side.)
        let w = 25, h = 22
        let samples = (0..<(w * h)).map { UInt16(1000 + 37 * $0) }
        for orientation in 1...8 {
            let dng = HandMadeDNG(width: w, height: h, cfaPattern: Self.dngColours(.grbg), whiteLevel: 65535,
                                  orientation: orientation)
            let path = try Self.write(dng.bytes(samples: samples), folder, "o\(orientation).dng")
            let decoded = try ImageFile.read(path)
            let stored = Plane(width: w, height: h, pixels: samples.map { Float($0) / 65535 })
            let expected = Orientation.apply(orientation, to: stored)
            #expect(decoded.image.planes[0] == expected, "orientation \(orientation)")
            let channels = (0..<(w * h)).map { BayerPattern.grbg.channel(x: $0 % w, y: $0 / w) }
            let (tw, th, turned) = Orientation.apply(orientation, to: channels, width: w, height: h)
            let pattern = try #require(decoded.cfa)
            let wrong = (0..<(tw * th)).filter { pattern.channel(x: $0 % tw, y: $0 / tw) != turned[$0] }.count
            #expect(wrong == 0, "orientation \(orientation): \(wrong) pixels of the wrong colour")
            let header = try ImageFile.readHeader(path)
            #expect(header.width == tw && header.height == th && header.channels == 1)
        }
    }

    @Test("truncated, oversized and metadata-only raws are refused in one line naming the file and the raw family")
    func refusals() throws {
        let w = 64, h = 48
        let samples = [UInt16](repeating: 3000, count: w * h)
        let good = HandMadeDNG(width: w, height: h).bytes(samples: samples)
        func reason(_ bytes: [UInt8], maxPixels: Int = ImageFile.defaultMaxPixels) -> String? {
            do { _ = try ImageFile.decode(bytes: bytes, path: "x.dng", maxPixels: maxPixels); return nil } catch let e as StackerError {
                #expect(e.path == "x.dng")
                return e.reason
            } catch { return "\(error)" }
        }
        let tooLarge = reason(good, maxPixels: 1000)
        #expect(tooLarge == "the image is 64×48 pixels, more than the limit of 0.001 megapixels")
        var stub = HandMadeDNG(width: w, height: h)
        stub.withPixels = false
        let stubReason = try #require(reason(stub.bytes(samples: samples)))
        #expect(stubReason.hasPrefix("camera raw (DNG)") && !stubReason.contains("\n"), "\(stubReason)")
        // Cut inside the pixels (the tags come first and survive).
        let cut = try #require(reason(Array(good.prefix(good.count / 2))))
        #expect(cut.hasPrefix("camera raw (DNG)") && !cut.contains("\n"), "\(cut)")
        // The tags of a whole sensor with hardly any data behind them, as
        // ExifTool's DNG and RW2 samples are: LibRaw would unpack zeros.
        let large = HandMadeDNG(width: 640, height: 480).bytes(samples: [UInt16](repeating: 3000, count: 640 * 480))
        let header = try #require(reason(Array(large.prefix(2000))))
        #expect(header == "camera raw (DNG) of 2000 bytes, too small for its 640×480 sensor: a metadata-only sample or a truncated file")
        // Any prefix of the file: an error or a decode, never a crash.
        for length in stride(from: 0, to: good.count, by: 97) { _ = reason(Array(good.prefix(length))) }
    }

    /// A colourful linear scene defined everywhere (so a frame displaced by
    /// (dx, dy) is sampled exactly): a colour gradient under `count` soft
    /// blobs of random sizes (σ in `sigma`), brightness and tint (each
    /// channel 0.6…1.4 × the blob's brightness: detail shared by the
    /// channels, as in photographs), values within 0.05…0.95.
    struct Scene {
        let width = 192, height = 144
        let blobs: [(x: Double, y: Double, sigma: Double, rgb: [Double])]

        init(seed: UInt64, count: Int = 90, sigma: ClosedRange<Double> = 1.5...6) {
            var rng = TestRandom(seed: seed)
            blobs = (0..<count).map { _ in
                (rng.uniform() * 192, rng.uniform() * 144, sigma.lowerBound + (sigma.upperBound - sigma.lowerBound) * rng.uniform(),
                 { amplitude in (0..<3).map { _ in amplitude * (0.6 + 0.8 * rng.uniform()) } }(rng.symmetric(0.25)))
            }
        }

        func value(_ c: Int, _ x: Double, _ y: Double) -> Double {
            var v = 0.35 + 0.1 * Double(c) * x / 192 + 0.1 * y / 144
            for b in blobs {
                let r2 = (x - b.x) * (x - b.x) + (y - b.y) * (y - b.y)
                if r2 < 50 * b.sigma * b.sigma { v += b.rgb[c] * exp(-r2 / (2 * b.sigma * b.sigma)) }
            }
            return min(max(v, 0.05), 0.95)
        }

        func truth() -> Image {
            Image(width: width, height: height, planes: (0..<3).map { c in
                Plane(width: width, height: height, pixels: (0..<(width * height)).map {
                    Float(value(c, Double($0 % width), Double($0 / width))) })
            })
        }
    }

    @Test("a generated RGGB DNG burst with known shifts: registered within 0.1 px, the median stack near the linear truth, RCD above bilinear")
    func burst() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(folder) }
        let scene = Scene(seed: 2513, count: 160, sigma: 0.8...3)  // fine detail, where the debayer matters
        let w = scene.width, h = scene.height
        let black: [UInt16] = [600, 610, 605, 620]
        let white: UInt32 = 16_000
        let shifts: [(Double, Double)] = [(0, 0), (1, 0), (0, 1), (2, -1), (-1.5, 0.5), (0.25, 1.75), (-2, -2), (3, 1)]
        var rng = TestRandom(seed: 2512)
        var paths: [String] = []
        for (k, (dx, dy)) in shifts.enumerated() {
            let samples = (0..<(w * h)).map { i -> UInt16 in
                let x = i % w, y = i / w
                let b = Double(black[(y & 1) << 1 | x & 1])
                let v = scene.value(BayerPattern.rggb.channel(x: x, y: y), Double(x) + dx, Double(y) + dy)
                    + 0.01 * rng.gaussian()
                return UInt16(min(max(b + v * (Double(white) - b), 0), 65535).rounded())
            }
            let dng = HandMadeDNG(width: w, height: h, blackLevels: black, whiteLevel: white)
            paths.append(try Self.write(dng.bytes(samples: samples), folder, "burst\(k).dng"))
        }
        var options = StackOptions()
        options.mode = .median
        options.threads = 2
        options.whiteBalance = .none  // the truth is in the camera's colour
        let result = try stack(paths.map { FrameSource.path($0) }, options: options)
        #expect(result.image.channels == 3)
        let errors = zip(result.frames, shifts).map { f, s in max(abs(f.dx - s.0), abs(f.dy - s.1)) }
        let worst = errors.max() ?? .infinity
        #expect(worst < 0.1, "registration errors \(errors)")
        let truth = scene.truth()
        let stacked = ImageMetrics.psnr(result.image, truth, border: 8)
        let single = ImageMetrics.psnr(Debayer.image(try ImageFile.read(paths[0]).image.planes[0], pattern: .rggb,
                                                     method: .bilinear), truth, border: 8)
        options.debayer = .rcd
        let rcd = try stack(paths.map { FrameSource.path($0) }, options: options)
        let rcdPSNR = ImageMetrics.psnr(rcd.image, truth, border: 8)
        print("DNG burst: median stack \(stacked) dB bilinear, \(rcdPSNR) dB RCD, one frame \(single) dB against the linear truth; worst shift error \(worst) px")
        #expect(stacked > single + 3, "stack \(stacked) dB, one frame \(single) dB")
        #expect(stacked > 35, "stack \(stacked) dB")
        #expect(rcdPSNR > stacked, "RCD \(rcdPSNR) dB, bilinear \(stacked) dB")
    }
}
