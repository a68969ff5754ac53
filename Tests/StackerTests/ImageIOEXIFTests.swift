import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

@Suite("EXIF orientation and pass-through")
struct ImageIOEXIFTests {
    /// Where the stored corners (0,0), (w-1,0) and (0,h-1) land in the upright
    /// picture for each orientation (EXIF 2.3, tag 0x0112): "0th row / 0th
    /// column" table written as corners, independently of the implementation.
    enum Corner { case tl, tr, bl, br }
    static let corners: [Int: (Corner, Corner, Corner)] = [
        1: (.tl, .tr, .bl), 2: (.tr, .tl, .br), 3: (.br, .bl, .tr), 4: (.bl, .br, .tl),
        5: (.tl, .bl, .tr), 6: (.tr, .br, .tl), 7: (.br, .tr, .bl), 8: (.bl, .tl, .br),
    ]

    /// The upright image expected for `stored` under `orientation`, built
    /// from the corner table: upright = P00 + sx·ex + sy·ey with unit axis vectors.
    static func expected(_ stored: Image, orientation: Int) -> Image {
        let w = stored.width, h = stored.height
        let swaps = orientation >= 5
        let W = swaps ? h : w, H = swaps ? w : h
        func point(_ c: Corner) -> (Int, Int) {
            switch c { case .tl: (0, 0); case .tr: (W - 1, 0); case .bl: (0, H - 1); case .br: (W - 1, H - 1) }
        }
        let (c00, c10, c01) = corners[orientation]!
        let p00 = point(c00), p10 = point(c10), p01 = point(c01)
        let ex = ((p10.0 - p00.0) / (w - 1), (p10.1 - p00.1) / (w - 1))
        let ey = ((p01.0 - p00.0) / (h - 1), (p01.1 - p00.1) / (h - 1))
        let planes = stored.planes.map { plane in
            var out = Plane(width: W, height: H)
            for y in 0..<H {
                for x in 0..<W {
                    let dx = x - p00.0, dy = y - p00.1
                    let sx = dx * ex.0 + dy * ex.1, sy = dx * ey.0 + dy * ey.1
                    out[x, y] = plane[sx, sy]
                }
            }
            return out
        }
        return Image(width: W, height: H, planes: planes)
    }

    /// A small asymmetric stored image: red ramps along x, green along y.
    static func stored() -> Image {
        let w = 24, h = 16
        var r = Plane(width: w, height: h), g = Plane(width: w, height: h)
        for y in 0..<h { for x in 0..<w { r[x, y] = Float(x) / Float(w - 1); g[x, y] = Float(y) / Float(h - 1) } }
        return Image(width: w, height: h, planes: [r, g, Plane(width: w, height: h, repeating: 0.5)])
    }

    @Test("each EXIF orientation 1…8 turns the image upright", arguments: 1...8)
    func orientation(_ n: Int) throws {
        let image = Self.stored()
        let jpeg = try ImageFile.encode(image, format: .jpeg, options: EncodeOptions(quality: 100))  // 4:4:4
        let tiff = IOFixtures.tiff(orientation: n, littleEndian: n % 2 == 0)
        let file = IOFixtures.splicingAPP1(EXIF.header + tiff, into: jpeg)
        let decoded = try ImageFile.decode(bytes: file)
        #expect(decoded.orientation == n)
        let want = Self.expected(image, orientation: n)
        #expect(decoded.image.width == want.width && decoded.image.height == want.height)
        guard decoded.image.width == want.width else { return }
        // q100 4:4:4 on ramps: error about one 8-bit step; a wrong turn gives
        // errors of 0.3 and more, so 3/255 separates them clearly.
        let err = ImageMetrics.maxAbsoluteError(decoded.image, want)
        #expect(err < 3.0 / 255, "orientation \(n): max error \(err)")
        // The returned EXIF has orientation 1; everything else is unchanged.
        let patched = IOFixtures.tiff(orientation: 1, littleEndian: n % 2 == 0)
        #expect(decoded.exif == patched)
    }

    @Test("EXIF survives into a JPEG output with orientation 1 and other tags byte for byte")
    func passThrough() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tiff = IOFixtures.tiff(orientation: 6, littleEndian: false, make: "Stackmatic", model: "SM-42 Mk II")
        let jpeg = try ImageFile.encode(Self.stored(), format: .jpeg)
        try AtomicFile.write(IOFixtures.splicingAPP1(EXIF.header + tiff, into: jpeg), to: folder + "/in.jpg")
        let input = try ImageFile.read(folder + "/in.jpg")
        #expect(input.orientation == 6)
        let exif = try #require(input.exif)
        try ImageFile.write(input.image, to: folder + "/out.jpg", options: EncodeOptions(exif: exif))
        let output = try ImageFile.read(folder + "/out.jpg")
        #expect(output.orientation == 1)
        #expect(output.image.width == input.image.width && output.image.height == input.image.height)
        let back = try #require(output.exif)
        #expect(back == exif)
        // Only the two orientation bytes differ from the camera's block.
        let diff = zip(tiff, back).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(back.count == tiff.count && diff.count == 1)
        #expect(String(decoding: back, as: UTF8.self).contains("Stackmatic"))
        #expect(String(decoding: back, as: UTF8.self).contains("SM-42 Mk II"))
    }

    @Test("EXIF too large for one APP1 segment is dropped, not a crash")
    func oversizedEXIF() throws {
        let big = IOFixtures.tiff(orientation: 1, littleEndian: true) + [UInt8](repeating: 7, count: 70_000)
        let jpeg = try ImageFile.encode(Self.stored(), format: .jpeg, options: EncodeOptions(exif: big))
        let d = try ImageFile.decode(bytes: jpeg)
        #expect(d.exif == nil && d.orientation == 1)
        // The largest block that fits is kept.
        let fits = IOFixtures.tiff(orientation: 1, littleEndian: true)
        let padded = fits + [UInt8](repeating: 0, count: EXIF.maxTIFFSize - fits.count)
        let j2 = try ImageFile.encode(Self.stored(), format: .jpeg, options: EncodeOptions(exif: padded))
        #expect(try ImageFile.decode(bytes: j2).exif == padded)
    }

    @Test("garbage EXIF decodes the pixels as stored, orientation 1, no EXIF")
    func garbageEXIF() throws {
        let jpeg = try ImageFile.encode(Self.stored(), format: .jpeg)
        var rng = TestRandom(seed: 42)
        var cases: [[UInt8]] = [
            [],                                            // empty payload
            [0x49, 0x49, 0x2A, 0x00],                      // header cut short
            [0x49, 0x49, 0x2A, 0x00, 0xFF, 0xFF, 0xFF, 0x7F],  // IFD0 far outside
            [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8, 0xFF, 0xFF],  // 65535 entries, no room
            Array(IOFixtures.tiff(orientation: 6, littleEndian: true).prefix(30)),  // entry cut
        ]
        for _ in 0..<200 {
            var t = IOFixtures.tiff(orientation: 3, littleEndian: Bool.random(using: &rng))
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                t[Int.random(in: 0..<t.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            cases.append(Array(t.prefix(Int.random(in: 0...t.count, using: &rng))))
        }
        for payload in cases {
            let d = try ImageFile.decode(bytes: IOFixtures.splicingAPP1(EXIF.header + payload, into: jpeg))
            #expect((1...8).contains(d.orientation))
            #expect(d.image.width * d.image.height == 24 * 16)
        }
        // Clearly malformed blocks give no EXIF at all.
        for payload in cases.prefix(5) {
            let d = try ImageFile.decode(bytes: IOFixtures.splicingAPP1(EXIF.header + payload, into: jpeg))
            #expect(d.exif == nil && d.orientation == 1 && d.image.width == 24)
        }
    }
}
