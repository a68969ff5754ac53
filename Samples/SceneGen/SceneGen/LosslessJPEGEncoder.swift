/// A lossless JPEG encoder (ITU-T T.81 process 14: SOF3, Huffman coding,
/// one scan), as DNG writers store raw data (DNG Compression = 7) and Canon
/// stores CR2 data.
///
/// Contract: `encode` returns a complete JPEG stream (SOI … EOI) whose
/// decoding gives back exactly the input samples. Each sample is predicted
/// from its decoded neighbours in the same component (`predictor` 1…7 of
/// T.81 Table H.1; the first row from the left, the first column from
/// above, the very first sample from 2^(P−1)); the difference modulo 2^16
/// is coded as its category (0…16, category 16 with no extra bits for
/// 32768) by one Huffman table built for the data (T.81 Annex K.2, code
/// lengths limited to 16 bits, no all-ones code), shared by all components,
/// and then its extra bits. Every 0xFF byte of the coded data is followed
/// by a stuffed 0x00.
///
/// A DNG CFA tile is coded as DNG writers do: a `width`-sample-wide row pair
/// is one JPEG row of `width / 2` samples of 2 components (the two columns
/// of each 2 × 2 cell's row), so predictor 1 predicts each sample from the
/// one two columns left, of the same CFA colour.
public enum LosslessJPEGEncoder {
    /// Encodes `samples`: `height` rows of `width` samples of `components`
    /// interleaved components each (`samples[(y * width + x) * components + c]`),
    /// every value below 2^`precision`.
    /// - Precondition: 1 ≤ components ≤ 4, 1 ≤ predictor ≤ 7,
    ///   2 ≤ precision ≤ 16, 1 ≤ width, height ≤ 65535, the count matches.
    public static func encode(_ samples: [UInt16], width: Int, height: Int, components: Int,
                              precision: Int = 16, predictor: Int = 1) -> [UInt8] {
        precondition((1...4).contains(components) && (1...7).contains(predictor) && (2...16).contains(precision),
                     "components \(components), predictor \(predictor), precision \(precision)")
        precondition((1...65535).contains(width) && (1...65535).contains(height), "size \(width)×\(height)")
        precondition(samples.count == width * height * components,
                     "need \(width * height * components) samples, got \(samples.count)")
        let rows = Residuals(samples: samples, rowLength: width * components, components: components,
                             precision: precision, predictor: predictor)
        var counts = [Int](repeating: 0, count: 17)
        rows.forEach { counts[Int(category($0))] += 1 }
        let table = HuffmanTable(counts: counts)

        var out: [UInt8] = [0xFF, 0xD8]
        // SOF3: precision, height, width, components (id, 1 × 1 sampling, no quantiser).
        var frame: [UInt8] = [UInt8(precision)] + be16(height) + be16(width) + [UInt8(components)]
        for c in 0..<components { frame += [UInt8(c + 1), 0x11, 0] }
        out += segment(0xC3, frame)
        // DHT: one DC-class table, id 0.
        out += segment(0xC4, [0x00] + table.bits + table.values)
        // SOS: every component on table 0; Ss = predictor, Se = 0, Ah = 0, Al = 0 (no point transform).
        var scan: [UInt8] = [UInt8(components)]
        for c in 0..<components { scan += [UInt8(c + 1), 0x00] }
        out += segment(0xDA, scan + [UInt8(predictor), 0, 0])

        var writer = BitWriter(capacity: samples.count * 3 / 2 + 64)
        rows.forEach { difference in
            let size = Int(category(difference))
            let code = table.codes[size]
            // Category 16 (32768) has no extra bits; a negative difference
            // sends its value minus one in `size` bits.
            let extra = size == 16 ? 0 : UInt64(UInt32(bitPattern: difference < 0 ? difference - 1 : difference)) & ((1 << size) - 1)
            writer.put(UInt64(code.bits) << (size == 16 ? 0 : size) | extra, count: Int(code.length) + (size == 16 ? 0 : size))
        }
        out += writer.finished()
        out += [0xFF, 0xD9]
        return out
    }

    /// The category (SSSS) of a difference in −32768…32767: the bit length
    /// of its magnitude, 16 for −32768 (the difference 32768 modulo 2^16).
    @inline(__always) static func category(_ difference: Int32) -> UInt8 {
        difference == -32768 ? 16 : UInt8(32 - difference.magnitude.leadingZeroBitCount)
    }

    static func be16(_ v: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)] }

    /// A marker segment: FF `marker`, its length (including the two length bytes), `body`.
    static func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
        [0xFF, marker] + be16(body.count + 2) + body
    }
}

extension LosslessJPEGEncoder {
    /// The prediction differences of an image, in coding order.
    struct Residuals {
        let samples: [UInt16]
        let rowLength: Int
        let components: Int
        let precision: Int
        let predictor: Int

        /// Calls `body` with each sample's difference from its prediction,
        /// reduced modulo 2^16 into −32768…32767, in coding order.
        func forEach(_ body: (Int32) -> Void) {
            let n = rowLength, c = components, first = Int32(1) << (precision - 1)
            samples.withUnsafeBufferPointer { s in
                let rowCount = s.count / n
                for y in 0..<rowCount {
                    let row = y * n
                    for i in 0..<n {
                        let x = Int32(s[row + i])
                        let prediction: Int32
                        if y == 0 {
                            prediction = i < c ? first : Int32(s[row + i - c])
                        } else if i < c {
                            prediction = Int32(s[row + i - n])
                        } else {
                            let a = Int32(s[row + i - c]), b = Int32(s[row + i - n]), d = Int32(s[row + i - n - c])
                            prediction = Self.predict(predictor, a: a, b: b, c: d)
                        }
                        body(Int32(Int16(truncatingIfNeeded: x - prediction)))
                    }
                }
            }
        }

        /// T.81 Table H.1 with Ra = `a` (left), Rb = `b` (above), Rc = `c` (above left).
        @inline(__always) static func predict(_ selection: Int, a: Int32, b: Int32, c: Int32) -> Int32 {
            switch selection {
            case 1: return a
            case 2: return b
            case 3: return c
            case 4: return a + b - c
            case 5: return a + ((b - c) >> 1)
            case 6: return b + ((a - c) >> 1)
            default: return (a + b) >> 1
            }
        }
    }

    /// A Huffman code for the categories 0…16, built from their counts.
    struct HuffmanTable {
        /// BITS: how many codes have each length 1…16.
        var bits: [UInt8]
        /// HUFFVAL: the categories in order of code length.
        var values: [UInt8]
        /// Per category, its code and length (length 0: unused).
        var codes: [(bits: UInt32, length: UInt8)]

        /// T.81 Annex K.2: Huffman code lengths with a reserved symbol (so
        /// no code is all ones), lengths over 16 folded in (Figure K.3),
        /// then the codes assigned in order (Annex C).
        init(counts: [Int]) {
            let symbols = counts.count  // the reserved symbol is `symbols`
            var frequency = counts + [1]
            var size = [Int](repeating: 0, count: symbols + 1)
            var next = [Int](repeating: -1, count: symbols + 1)
            while true {
                // The two least frequent live symbols, the larger index on ties.
                var v1 = -1, v2 = -1
                for i in 0...symbols where frequency[i] > 0 {
                    if v1 < 0 || frequency[i] <= frequency[v1] { v2 = v1; v1 = i } else if v2 < 0 || frequency[i] <= frequency[v2] { v2 = i }
                }
                guard v2 >= 0 else { break }
                frequency[v1] += frequency[v2]
                frequency[v2] = 0
                // Every symbol of both subtrees moves one level down.
                var k = v1
                size[k] += 1
                while next[k] >= 0 { k = next[k]; size[k] += 1 }
                next[k] = v2
                k = v2
                size[k] += 1
                while next[k] >= 0 { k = next[k]; size[k] += 1 }
            }
            var lengthCount = [Int](repeating: 0, count: max(33, (size.max() ?? 0) + 1))
            for s in size where s > 0 { lengthCount[s] += 1 }
            // Fold lengths over 16: two codes of length i become one of i − 1
            // and move a shorter code one level down to make room.
            for i in stride(from: lengthCount.count - 1, through: 17, by: -1) {
                while lengthCount[i] > 0 {
                    var j = i - 2
                    while lengthCount[j] == 0 { j -= 1 }
                    lengthCount[i] -= 2
                    lengthCount[i - 1] += 1
                    lengthCount[j + 1] += 2
                    lengthCount[j] -= 1
                }
            }
            // Drop the reserved symbol: it has one of the longest codes.
            var longest = 16
            while lengthCount[longest] == 0 { longest -= 1 }
            lengthCount[longest] -= 1
            bits = (1...16).map { UInt8(lengthCount[$0]) }
            // The symbols by their original lengths, shortest first; the
            // folded counts give each position its final length.
            var order: [Int] = []
            for length in 1...32 {
                for s in 0..<symbols where size[s] == length { order.append(s) }
            }
            values = order.prefix(bits.reduce(0) { $0 + Int($1) }).map(UInt8.init)
            codes = Array(repeating: (0, 0), count: symbols)
            var code: UInt32 = 0, position = 0
            for length in 1...16 {
                for _ in 0..<Int(bits[length - 1]) {
                    codes[Int(values[position])] = (code, UInt8(length))
                    code += 1
                    position += 1
                }
                code <<= 1
            }
        }
    }

    /// Bits written most significant first into bytes, a 0x00 stuffed after every 0xFF.
    struct BitWriter {
        private var bytes: [UInt8] = []
        private var buffer: UInt64 = 0
        private var pending = 0

        init(capacity: Int) { bytes.reserveCapacity(capacity) }

        /// Appends the low `count` (≤ 32) bits of `value`.
        @inline(__always) mutating func put(_ value: UInt64, count: Int) {
            buffer = buffer << UInt64(count) | value
            pending += count
            while pending >= 8 {
                pending -= 8
                let byte = UInt8(truncatingIfNeeded: buffer >> UInt64(pending))
                bytes.append(byte)
                if byte == 0xFF { bytes.append(0) }
            }
        }

        /// The bytes, the last one padded with 1 bits (T.81 F.1.2.3).
        mutating func finished() -> [UInt8] {
            if pending > 0 { put((1 << UInt64(8 - pending)) - 1, count: 8 - pending) }
            return bytes
        }
    }
}
