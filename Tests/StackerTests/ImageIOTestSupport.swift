import Foundation
import Registration
@testable import Stacker
import TestSupport

enum IOFixtures {
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

    /// Mean and maximum absolute difference over all samples (same sizes required).
    static func error(_ a: Image, _ b: Image) -> (mean: Float, max: Float) {
        var sum: Double = 0, worst: Float = 0
        for (pa, pb) in zip(a.planes, b.planes) {
            for (x, y) in zip(pa.pixels, pb.pixels) {
                let d = abs(x - y)
                sum += Double(d)
                worst = max(worst, d)
            }
        }
        return (Float(sum / Double(a.pixelCount * a.channels)), worst)
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

    /// A fresh empty folder for one test.
    static func temporaryFolder() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("stack-io-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    /// Files in `folder` (names only).
    static func listing(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// CRC-32 (PNG / zlib polynomial), for building PNG chunks by hand.
    static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }

    /// A PNG built by hand (zlib "stored" blocks, no compression) from
    /// already-packed rows (each gets filter byte 0), for colour types our
    /// encoder does not write: palette, gray+alpha, RGBA, 1/2/4-bit gray.
    static func handMadePNG(width: Int, height: Int, bitDepth: Int, colorType: Int,
                            rows: [[UInt8]], palette: [UInt8]? = nil, trns: [UInt8]? = nil) -> [UInt8] {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let td = Array(type.utf8) + data
            return be32(data.count) + td + be32(Int(crc32(td)))
        }
        var raw = [UInt8]()
        for r in rows { raw += [0] + r }
        var z: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65535, raw.count - offset)
            let last: UInt8 = offset + n == raw.count ? 1 : 0
            z += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            z += raw[offset..<(offset + n)]
            offset += n
        } while offset < raw.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        z += be32(Int(b << 16 | a))
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", be32(width) + be32(height) + [UInt8(bitDepth), UInt8(colorType), 0, 0, 0])
        if let palette { png += chunk("PLTE", palette) }
        if let trns { png += chunk("tRNS", trns) }
        png += chunk("IDAT", z)
        png += chunk("IEND", [])
        return png
    }
}
