import Foundation
import Testing
@testable import Stacker
@testable import SceneGen
import TestSupport

/// DNGs written as cameras write them, lossless JPEG (Compression = 7) in
/// tiles or one strip (`DNGFile.Compression.ljpeg`, `LosslessJPEGEncoder`),
/// read back through LibRaw to the very mosaic their uncompressed twins give.
@Suite("Lossless JPEG DNG")
struct LosslessDNGTests {
    /// A mosaic that exercises every difference category: a smooth
    /// gradient with noise (small differences), a band of uniform noise
    /// over the whole 16-bit range (large ones), and a row alternating 0 and
    /// 32768 within each CFA colour (the difference 32768, category 16);
    /// without `hard`, the gradient alone.
    static func samples(width w: Int, height h: Int, seed: UInt64, hard: Bool = true) -> [UInt16] {
        var rng = TestRandom(seed: seed)
        return (0..<(w * h)).map { i in
            let x = i % w, y = i / w
            if hard && y == 5 { return (x / 2) % 2 == 0 ? 0 : 32768 }
            if hard && y >= h / 2 && y < h / 2 + 8 { return UInt16(rng.int(in: 0...65535)) }
            let smooth = 2000 + 40 * x + 25 * y + 3000 * (x & 1) + rng.int(in: -30...30)
            return UInt16(min(max(smooth, 0), 65535))
        }
    }

    /// The count of 0xFF bytes in a JPEG's entropy-coded segment (after the
    /// SOS segment, before the EOI), and whether each is followed by a
    /// stuffed 0x00 and the stream ends with EOI.
    static func stuffing(_ jpeg: [UInt8]) -> (ff: Int, stuffed: Bool) {
        // The coded data runs from after the SOS segment to the EOI.
        var i = 2
        while !(jpeg[i] == 0xFF && jpeg[i + 1] == 0xDA) { i += 2 + Int(jpeg[i + 2]) << 8 + Int(jpeg[i + 3]) }
        i += 2 + Int(jpeg[i + 2]) << 8 + Int(jpeg[i + 3])
        let end = jpeg.count - 2
        var ff = 0, stuffed = true
        while i < end {
            if jpeg[i] == 0xFF {
                ff += 1
                if jpeg[i + 1] != 0 { stuffed = false }
                i += 1
            }
            i += 1
        }
        return (ff, stuffed && jpeg[end] == 0xFF && jpeg[end + 1] == 0xD9)
    }

    @Test("tiled and striped, every Bayer pattern, with black levels: LibRaw reads exactly the uncompressed file's mosaic")
    func sameMosaicAsUncompressed() throws {
        let black: [UInt16] = [512, 530, 520, 541]
        // (size, tile): 12 tiles of 16; one strip; 6 tiles of 96 (the right
        // column padded); one strip from 256 (a single tile).
        let layouts = [(64, 48, 16), (64, 48, 256), (256, 192, 96), (256, 192, 256)]
        for (n, (w, h, tile)) in layouts.enumerated() {
            let samples = Self.samples(width: w, height: h, seed: 2590 + UInt64(n))
            for pattern in BayerPattern.allCases {
                var plain = HandMadeDNG(width: w, height: h, cfaPattern: RAWCodecTests.dngColours(pattern),
                                        blackLevels: black, whiteLevel: 60_000)
                var packed = plain
                packed.compression = .ljpeg
                packed.tileSize = tile
                plain.compression = .none
                let expected = try ImageFile.decode(bytes: plain.bytes(samples: samples), path: "plain.dng")
                let bytes = packed.bytes(samples: samples)
                let decoded = try ImageFile.decode(bytes: bytes, path: "ljpeg.dng")
                #expect(decoded.cfa == pattern && decoded.bitDepth == 16)
                let a = decoded.image.planes[0].pixels, b = expected.image.planes[0].pixels
                let differing = zip(a, b).filter { $0 != $1 }.count
                #expect(a.count == w * h && differing == 0, "\(w)×\(h) tile \(tile) \(pattern): \(differing) samples differ")
                if pattern == .rggb {
                    print("Lossless DNG \(w)×\(h) \(packed.tiles.map { "\($0.across)×\($0.down) tiles of \(tile)" } ?? "one strip"): \(bytes.count) bytes, uncompressed \(plain.bytes(samples: samples).count)")
                }
            }
        }
    }

    @Test("every predictor 1…7 round-trips through LibRaw")
    func predictors() throws {
        let w = 64, h = 48
        let samples = Self.samples(width: w, height: h, seed: 2599)
        let expected = try ImageFile.decode(bytes: HandMadeDNG(width: w, height: h).bytes(samples: samples), path: "plain.dng")
        for predictor in 1...7 {
            var dng = HandMadeDNG(width: w, height: h)
            dng.compression = .ljpeg
            dng.tileSize = 16
            dng.predictor = predictor
            let decoded = try ImageFile.decode(bytes: dng.bytes(samples: samples), path: "p\(predictor).dng")
            #expect(decoded.image.planes[0] == expected.image.planes[0], "predictor \(predictor)")
        }
    }

    @Test("the coded data stuffs a 0x00 after every 0xFF and uses category 16; a gradient codes within Huffman's bound of its entropy")
    func codedData() throws {
        let w = 256, h = 192
        let samples = Self.samples(width: w, height: h, seed: 2600)
        let jpeg = LosslessJPEGEncoder.encode(samples, width: w / 2, height: h, components: 2)
        let (ff, stuffed) = Self.stuffing(jpeg)
        #expect(ff > 0 && stuffed, "\(ff) 0xFF bytes in the coded data")
        // The DHT segment lists category 16 among its values.
        let dht = try #require((0..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC4 })
        let codeCount = jpeg[(dht + 5)..<(dht + 21)].reduce(0) { $0 + Int($1) }
        #expect(jpeg[(dht + 21)..<(dht + 21 + codeCount)].contains(16))
        // On the gradient alone, the code is an optimal prefix code of the
        // categories: its length lies between their entropy and the entropy
        // plus one bit a sample (Huffman's bound), beside the extra bits.
        let smooth = Self.samples(width: w, height: h, seed: 2600, hard: false)
        var counts = [Int](repeating: 0, count: 17), extraBits = 0
        LosslessJPEGEncoder.Residuals(samples: smooth, rowLength: w, components: 2, precision: 16, predictor: 1).forEach {
            let size = Int(LosslessJPEGEncoder.category($0))
            counts[size] += 1
            extraBits += size == 16 ? 0 : size
        }
        let n = Double(w * h)
        var entropy = 0.0
        for k in counts where k > 0 { entropy -= Double(k) * log2(Double(k) / n) }
        let coded = LosslessJPEGEncoder.encode(smooth, width: w / 2, height: h, components: 2)
        let (stuffedFF, _) = Self.stuffing(coded)
        // The payload without headers (SOI, SOF3, DHT, SOS, EOI) and stuffed bytes.
        let headers = 2 + 2 + 14 + 2 + 19 + 2 + 10 + 2
        let dhtValues = counts.filter { $0 > 0 }.count
        let payloadBits = Double(8 * (coded.count - headers - dhtValues - stuffedFF))
        let bitsPerSample = payloadBits / n, ideal = (entropy + Double(extraBits)) / n
        print("Lossless JPEG of a noisy gradient: \(bitsPerSample) bits a sample against an ideal \(ideal) (16-bit size × \(Double(coded.count) / (2 * n))); \(ff) stuffed 0xFF in the noisy one")
        #expect(bitsPerSample >= ideal - 8 / n && bitsPerSample <= ideal + 1, "\(bitsPerSample) bits a sample, ideal \(ideal)")
    }
}
