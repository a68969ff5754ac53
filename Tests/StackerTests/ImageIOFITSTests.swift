import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

/// FITS files written and read by hand, so the tests check the bytes
/// against the standard rather than against cfitsio.
enum HandMadeFITS {
    /// A primary HDU: `cards` (each padded to 80 characters), END, the
    /// header padded with blanks to 2880 bytes, then `data` padded with zeros.
    static func file(cards: [String], data: [UInt8]) -> [UInt8] {
        var header = (cards + ["END"]).map { $0.padding(toLength: 80, withPad: " ", startingAt: 0) }.joined()
        while header.utf8.count % 2880 != 0 { header += " " }
        var bytes = Array(header.utf8) + data
        while bytes.count % 2880 != 0 { bytes.append(0) }
        return bytes
    }

    /// The structural cards for an image of `bitpix` with `axes`.
    static func cards(bitpix: Int, axes: [Int]) -> [String] {
        ["SIMPLE  =                    T", "BITPIX  = \(String(repeating: " ", count: 20 - String(bitpix).count))\(bitpix)",
         "NAXIS   =                    \(axes.count)"]
            + axes.enumerated().map { i, n in "NAXIS\(i + 1)  = \(String(repeating: " ", count: 20 - String(n).count))\(n)" }
    }

    /// The header cards of a FITS file (up to END) and where its data starts.
    static func parse(_ bytes: [UInt8]) -> (cards: [String], dataStart: Int) {
        var cards: [String] = []
        var i = 0
        while i + 80 <= bytes.count {
            let card = String(decoding: bytes[i..<(i + 80)], as: UTF8.self)
            i += 80
            if card.hasPrefix("END ") { break }
            cards.append(card)
        }
        return (cards, (i + 2879) / 2880 * 2880)
    }

    /// Big-endian bytes of `values`, each `size` bytes wide.
    static func bigEndian(_ values: [UInt64], size: Int) -> [UInt8] {
        values.flatMap { v in (0..<size).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
    }
}

@Suite("FITS files")
struct ImageIOFITSTests {
    @Test("8- and 16-bit FITS round trips are exact (gray and RGB)")
    func integerExact() throws {
        for (depth, levels) in [(8, 255), (16, 65535)] {
            for channels in [1, 3] {
                let image = IOFixtures.quantised(width: 29, height: 17, channels: channels, levels: levels, seed: UInt64(80 + depth + channels))
                let bytes = try ImageFile.encode(image, format: .fits, options: EncodeOptions(bitDepth: depth))
                #expect(ImageFormat.fromMagic(bytes) == .fits)
                #expect(bytes.count % 2880 == 0)
                let decoded = try ImageFile.decode(bytes: bytes)
                #expect(decoded.bitDepth == depth)
                #expect(decoded.image == image, "\(depth)-bit, \(channels) channel(s)")
            }
        }
    }

    @Test("32-bit float FITS keeps values outside 0…1, negative ones too, within float epsilon")
    func float32() throws {
        for channels in [1, 3] {
            let image = IOFixtures.randomFloats(width: 19, height: 11, channels: channels, in: -2...4, seed: UInt64(85 + channels))
            let decoded = try ImageFile.decode(bytes: ImageFile.encode(image, format: .fits, options: EncodeOptions(bitDepth: 32)))
            #expect(decoded.bitDepth == 32)
            // BITPIX -32 stores the Float itself: at most one epsilon relative.
            #expect(IOFixtures.epsilons(image, decoded.image) <= 1)
        }
    }

    @Test("the first stored FITS row is the image's bottom row; 16-bit is BITPIX 16 with BZERO 32768")
    func rowOrderAndBZERO() throws {
        let w = 5, h = 4
        // Row y holds (y + 1) · 1000 + x, so every row is different.
        let values = (0..<(w * h)).map { i in Float((i / w + 1) * 1000 + i % w) / 65535 }
        let image = Image(width: w, height: h, planes: [Plane(width: w, height: h, pixels: values)])
        let bytes = try ImageFile.encode(image, format: .fits, options: EncodeOptions(bitDepth: 16))
        let (cards, start) = HandMadeFITS.parse(bytes)
        func value(_ name: String) -> String? {
            cards.first { $0.hasPrefix(name.padding(toLength: 8, withPad: " ", startingAt: 0) + "=") }
                .map { String($0.dropFirst(10).prefix { $0 != "/" }).trimmingCharacters(in: .whitespaces) }
        }
        #expect(value("BITPIX") == "16")
        #expect(value("BZERO") == "32768")
        #expect(value("NAXIS") == "2" && value("NAXIS1") == "5" && value("NAXIS2") == "4")
        #expect(start == 2880)
        // Stored: big-endian signed 16-bit, file value − 32768.
        func stored(_ row: Int, _ x: Int) -> Int {
            let i = start + 2 * (row * w + x)
            return Int(Int16(bitPattern: UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]))) + 32768
        }
        for x in 0..<w {
            #expect(stored(0, x) == h * 1000 + x, "first stored row = bottom row (y = \(h - 1))")
            #expect(stored(h - 1, x) == 1000 + x, "last stored row = top row")
        }
    }

    @Test("EXPTIME and DATE-OBS survive a round trip; structural keywords cannot be injected")
    func keywords() throws {
        let image = IOFixtures.quantised(width: 6, height: 4, channels: 3, levels: 65535, seed: 86)
        let given = [
            FITSKeyword(name: "EXPTIME", value: "120.5", comment: "exposure time [s]", kind: .float),
            FITSKeyword(name: "DATE-OBS", value: "2024-03-01T22:14:05.123", comment: "UTC start", kind: .string),
            FITSKeyword(name: "OBJECT", value: "M 31 'Andromeda' / BITPIX = 8", kind: .string),
            FITSKeyword(name: "GAIN", value: "100", kind: .integer),
            // Attempts on the layout: all ignored.
            FITSKeyword(name: "BITPIX", value: "8", kind: .integer),
            FITSKeyword(name: "NAXIS", value: "5", kind: .integer),
            FITSKeyword(name: "NAXIS3", value: "7", kind: .integer),
            FITSKeyword(name: "bzero", value: "0", kind: .integer),
            FITSKeyword(name: "BSCALE", value: "2", kind: .float),
            FITSKeyword(name: "SIMPLE", value: "F", kind: .logical),
            FITSKeyword(name: "EXTEND", value: "F", kind: .logical),
            FITSKeyword(name: "CCD-TEMP", value: "-10 BITPIX = 8", kind: .float),  // not a number
            FITSKeyword(name: "BAD NAME", value: "1", kind: .integer),
            FITSKeyword(name: "EXPTIME", value: "999", kind: .float),  // second of a name: ignored
        ]
        let bytes = try ImageFile.encode(image, format: .fits, options: EncodeOptions(bitDepth: 16, keywords: given))
        let decoded = try ImageFile.decode(bytes: bytes)
        #expect(decoded.image == image)
        let byName = Dictionary(decoded.keywords.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(byName["EXPTIME"] == FITSKeyword(name: "EXPTIME", value: "120.5", comment: "exposure time [s]", kind: .float))
        #expect(byName["DATE-OBS"] == FITSKeyword(name: "DATE-OBS", value: "2024-03-01T22:14:05.123", comment: "UTC start", kind: .string))
        #expect(byName["OBJECT"]?.value == "M 31 'Andromeda' / BITPIX = 8")
        #expect(byName["GAIN"]?.value == "100" && byName["GAIN"]?.kind == .integer)
        #expect(byName["CCD-TEMP"] == nil)
        let cards = HandMadeFITS.parse(bytes).cards
        for name in ["SIMPLE", "BITPIX", "NAXIS", "NAXIS1", "NAXIS2", "NAXIS3", "BZERO", "BSCALE", "EXTEND", "EXPTIME"] {
            #expect(cards.filter { $0.hasPrefix(name.padding(toLength: 8, withPad: " ", startingAt: 0) + "=") }.count == 1, "\(name)")
        }
        #expect(cards.contains { $0.hasPrefix("BITPIX  =                   16") })
        #expect(cards.contains { $0.hasPrefix("SIMPLE  =                    T") })
        #expect(!cards.contains { $0.hasPrefix("NAXIS3  =                    7") })
    }

    @Test("hand-made files: BITPIX -64, 32 with BZERO, signed 16 and NAXIS3 = 1 scale as documented")
    func handMade() throws {
        let w = 3, h = 2
        let bytes6: [UInt8] = [0, 51, 255, 1, 2, 3]
        // BITPIX -64, stored bottom row first: rows (0.5, 1, 1.5), (2, -1, 0) → top row is the second.
        let doubles: [Double] = [0.5, 1, 1.5, 2, -1, 0]
        let f64 = HandMadeFITS.file(cards: HandMadeFITS.cards(bitpix: -64, axes: [w, h]),
                                    data: HandMadeFITS.bigEndian(doubles.map(\.bitPattern), size: 8))
        let d64 = try ImageFile.decode(bytes: f64)
        #expect(d64.bitDepth == 32)
        #expect(d64.image.planes[0].pixels == [2, -1, 0, 0.5, 1, 1.5])

        // BITPIX 32 + BZERO 2^31: unsigned 32-bit, / 4294967295.
        let u32: [UInt64] = [0, 0xFFFF_FFFF, 0x8000_0000, 0, 0, 0].map { $0 ^ 0x8000_0000 }
        let f32 = HandMadeFITS.file(cards: HandMadeFITS.cards(bitpix: 32, axes: [w, h]) + ["BZERO   =           2147483648"],
                                    data: HandMadeFITS.bigEndian(u32, size: 4))
        let d32 = try ImageFile.decode(bytes: f32)
        #expect(d32.image.planes[0].pixels[3...5] == [0, 1, 0.5])

        // Signed 16-bit without BZERO: value / 65535, negative stays negative.
        let s16: [Int16] = [-32768, -1, 0, 1, 32767, 16383]
        let f16 = HandMadeFITS.file(cards: HandMadeFITS.cards(bitpix: 16, axes: [w, h]),
                                    data: HandMadeFITS.bigEndian(s16.map { UInt64(UInt16(bitPattern: $0)) }, size: 2))
        let d16 = try ImageFile.decode(bytes: f16)
        #expect(d16.bitDepth == 16)
        let topRow: [Float] = [1, 32767, 16383], bottomRow: [Float] = [-32768, -1, 0]
        #expect(d16.image.planes[0].pixels == (topRow + bottomRow).map { $0 / 65535 })

        // Keyword text outside printable ASCII becomes `?`; trailing blanks go.
        let odd = HandMadeFITS.file(cards: HandMadeFITS.cards(bitpix: 8, axes: [w, h]) + ["OBJECT  = 'M\u{07}31 ''A''   '"],
                                    data: bytes6)
        #expect(try ImageFile.decode(bytes: odd).keywords == [FITSKeyword(name: "OBJECT", value: "M?31 'A'", kind: .string)])

        // 8-bit with NAXIS3 = 1: one gray plane.
        let f8 = HandMadeFITS.file(cards: HandMadeFITS.cards(bitpix: 8, axes: [w, h, 1]), data: bytes6)
        let d8 = try ImageFile.decode(bytes: f8)
        #expect(d8.image.channels == 1 && d8.bitDepth == 8)
        let stored8: [Float] = [1, 2, 3, 0, 51, 255]
        #expect(d8.image.planes[0].pixels == stored8.map { $0 / 255 })
    }

    @Test("truncated data, NAXIS = 0 alone, a truncated cube and a decompression-bomb header are unreadable, naming the file")
    func malformed() throws {
        let good = try ImageFile.encode(IOFixtures.smooth(width: 40, height: 30, channels: 3, seed: 87), format: .fits,
                                        options: EncodeOptions(bitDepth: 16))
        let truncated = IOFixtures.unreadable { _ = try ImageFile.decode(bytes: Array(good.prefix(2880 + 1000)), path: "cut.fits") }
        #expect(truncated?.path == "cut.fits")
        #expect(truncated?.reason == "truncated FITS data")
        let cases: [([String], String)] = [
            (HandMadeFITS.cards(bitpix: 16, axes: []),
             "the FITS file has no image: its primary HDU is empty (NAXIS = 0) and no extension follows"),
            // One 2880-byte data record holds the first plane of 30 × 30 × 2
            // bytes, not all 6: the whole cube is checked.
            (HandMadeFITS.cards(bitpix: 16, axes: [30, 30, 6]), "truncated FITS data"),
            (HandMadeFITS.cards(bitpix: 16, axes: [4]), "FITS images with NAXIS = 1 are not supported (need 2 or 3)"),
            (HandMadeFITS.cards(bitpix: 16, axes: [100_000, 100_000]),
             "the image is 100000×100000 pixels, more than the limit of 500 megapixels"),
        ]
        for (cards, reason) in cases {
            let bytes = HandMadeFITS.file(cards: cards, data: [UInt8](repeating: 0, count: 160))
            let got = IOFixtures.unreadable { _ = try ImageFile.decode(bytes: bytes, path: "odd.fits") }
            #expect(got?.path == "odd.fits")
            #expect(got?.reason == reason)
        }
        // The header cards alone: no END card, no data.
        let noEnd = Array(HandMadeFITS.cards(bitpix: 8, axes: [2, 2]).joined().utf8)
        let noEndReason = IOFixtures.unreadable { _ = try ImageFile.decode(bytes: noEnd, path: "x.fits") }?.reason
        #expect(noEndReason?.contains("FITS data") == true, "\(noEndReason ?? "decoded")")
    }

    @Test("cutting or flipping bytes of a FITS file never crashes")
    func mutations() throws {
        let image = IOFixtures.smooth(width: 20, height: 12, channels: 3, seed: 88)
        var rng = TestRandom(seed: 89)
        for depth in [8, 16, 32] {
            let file = try ImageFile.encode(image, format: .fits, options: EncodeOptions(bitDepth: depth))
            for cut in stride(from: 0, to: file.count, by: 97) { _ = try? ImageFile.decode(bytes: Array(file.prefix(cut))) }
            for _ in 0..<100 {
                var f = file
                // Mutate the header mostly: that is where parsing happens.
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    f[Int.random(in: 9..<min(f.count, 720), using: &rng)] = UInt8.random(in: 32...126, using: &rng)
                }
                do { _ = try ImageFile.decode(bytes: f, maxPixels: 1 << 20) } catch let e as StackerError { #expect(!e.reason.isEmpty) }
            }
        }
    }

    @Test("decoding on several threads at once gives the same images")
    func concurrent() throws {
        let image = IOFixtures.quantised(width: 64, height: 48, channels: 3, levels: 65535, seed: 90)
        let bytes = try ImageFile.encode(image, format: .fits, options: EncodeOptions(bitDepth: 16))
        let decoded = try Array(0..<16).concurrentMap { _ in try ImageFile.decode(bytes: bytes).image }
        #expect(decoded.allSatisfy { $0 == image })
    }

    @Test("readHeader agrees with decode, and ImageFile.write leaves only the finished file")
    func filesOnDisk() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (channels, depth, ext) in [(1, 8, "fits"), (3, 16, "fit"), (3, 32, "fts")] {
            let image = IOFixtures.smooth(width: 31, height: 22, channels: channels, seed: 91)
            let path = folder + "/out-\(depth).\(ext)"
            try ImageFile.write(image, to: path, options: EncodeOptions(bitDepth: depth))
            let header = try ImageFile.readHeader(path)
            let decoded = try ImageFile.read(path)
            #expect(header.width == 31 && header.height == 22 && header.channels == channels)
            #expect(decoded.image.width == 31 && decoded.image.channels == channels && decoded.bitDepth == depth)
        }
        #expect(TestFiles.listing(folder) == ["out-16.fit", "out-32.fts", "out-8.fits"])
        let image = IOFixtures.smooth(width: 8, height: 8, channels: 3, seed: 92)
        #expect(throws: StackerError.invalidInput(path: folder + "/bad.fits", reason: "FITS bit depth must be 8, 16 or 32 (float), not 64")) {
            try ImageFile.write(image, to: folder + "/bad.fits", options: EncodeOptions(bitDepth: 64))
        }
        #expect(throws: StackerError.self) { try ImageFile.write(image, to: folder + "/nowhere/out.fits") }
        #expect(TestFiles.listing(folder).count == 3)
    }
}
