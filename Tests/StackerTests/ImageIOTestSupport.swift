import Foundation
import Registration
@testable import Stacker
import TestSupport

/// Images and byte blocks the I/O tests build in code, from fixed seeds.
enum IOFixtures {
    /// Mean and largest absolute difference between two images of one size.
    static func error(_ a: Image, _ b: Image) -> (mean: Float, max: Float) {
        (Float(ImageMetrics.meanAbsoluteError(a, b)), Float(ImageMetrics.maxAbsoluteError(a, b)))
    }

    /// A smooth image: per channel a gradient plus two low-frequency sines
    /// with seeded phases, values kept inside 0.1…0.9.
    static func smooth(width: Int, height: Int, channels: Int, seed: UInt64) -> Image {
        var rng = TestRandom(seed: seed)
        let planes = (0..<channels).map { _ -> Plane in
            let p1 = Float.random(in: 0..<6.28, using: &rng), p2 = Float.random(in: 0..<6.28, using: &rng)
            var px = [Float](repeating: 0, count: width * height)
            for y in 0..<height {
                for x in 0..<width {
                    let u = Float(x) / Float(width), v = Float(y) / Float(height)
                    px[y * width + x] = 0.5 + 0.2 * (u - v) + 0.1 * sin(6 * u + p1) + 0.1 * cos(5 * v + p2)
                }
            }
            return Plane(width: width, height: height, pixels: px)
        }
        return Image(width: width, height: height, planes: planes)
    }

    /// Random samples k / `levels` (k uniform in 0…levels), so that an exact
    /// integer format round-trips them bit for bit.
    static func quantised(width: Int, height: Int, channels: Int, levels: Int, seed: UInt64) -> Image {
        var rng = TestRandom(seed: seed)
        let planes = (0..<channels).map { _ in
            Plane(width: width, height: height,
                  pixels: (0..<(width * height)).map { _ in Float(Int.random(in: 0...levels, using: &rng)) / Float(levels) })
        }
        return Image(width: width, height: height, planes: planes)
    }

    /// Random samples uniform in `range` (outside 0…1 too), for float formats.
    static func randomFloats(width: Int, height: Int, channels: Int, in range: ClosedRange<Float>, seed: UInt64) -> Image {
        var rng = TestRandom(seed: seed)
        let planes = (0..<channels).map { _ in
            Plane(width: width, height: height, pixels: (0..<(width * height)).map { _ in Float.random(in: range, using: &rng) })
        }
        return Image(width: width, height: height, planes: planes)
    }

    /// The largest difference between the samples of `a` and `b` in units of
    /// one float epsilon relative to the sample (at least 1): ≤ 1 means the
    /// two agree "within float epsilon".
    static func epsilons(_ a: Image, _ b: Image) -> Float {
        var worst: Float = 0
        for (pa, pb) in zip(a.planes, b.planes) {
            for (x, y) in zip(pa.pixels, pb.pixels) { worst = max(worst, abs(x - y) / (Float.ulpOfOne * max(1, abs(x)))) }
        }
        return worst
    }

    /// The path and reason of the `StackerError.unreadable` that `body`
    /// throws; nil when it does not throw.
    static func unreadable(_ body: () throws -> Void) -> (path: String, reason: String)? {
        do {
            try body()
            return nil
        } catch let StackerError.unreadable(path, reason) {
            return (path, reason)
        } catch {
            return ("?", "unexpected error \(error)")
        }
    }

    /// A TIFF block with IFD0 holding Make, Model (ASCII) and Orientation
    /// (SHORT), in either byte order.
    static func tiff(orientation: Int, littleEndian: Bool, make: String = "TestCam", model: String = "Model X-1") -> [UInt8] {
        var out = [UInt8]()
        func u16(_ v: Int) { out += littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: Int) {
            let b = [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
            out += littleEndian ? b.reversed() : b
        }
        let makeBytes = Array(make.utf8) + [0], modelBytes = Array(model.utf8) + [0]
        out += littleEndian ? [0x49, 0x49, 0x2A, 0x00] : [0x4D, 0x4D, 0x00, 0x2A]
        u32(8)
        let entries = 3
        let dataStart = 8 + 2 + 12 * entries + 4
        u16(entries)
        u16(0x010F); u16(2); u32(makeBytes.count); u32(dataStart)
        u16(0x0110); u16(2); u32(modelBytes.count); u32(dataStart + makeBytes.count)
        u16(0x0112); u16(3); u32(1); u16(orientation); u16(0)
        u32(0)  // no IFD1
        out += makeBytes + modelBytes
        return out
    }

    /// `jpeg` with a hand-made APP1 segment carrying `payload` (normally
    /// `Exif\0\0` + a TIFF block) spliced in right after SOI.
    static func splicingAPP1(_ payload: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return Array(jpeg[0..<2]) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + Array(jpeg[2...])
    }
}
