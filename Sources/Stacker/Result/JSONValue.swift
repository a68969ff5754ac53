/// A parsed JSON value: enough of RFC 8259 to read back our own reports
/// and hand-written files of the same shape. Numbers are read as `Double`
/// with Swift's correctly rounded parser, so a number printed by
/// `JSONText.number` reads back to the same bits.
enum JSONValue: Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses `text`; throws a `JSONValue.SyntaxError` saying where it stops
    /// making sense. Nesting deeper than 64 levels is refused.
    static func parse(_ text: String) throws(SyntaxError) -> JSONValue {
        var parser = Parser(bytes: Array(text.utf8))
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.at == parser.bytes.count else { throw parser.error("unexpected text after the value") }
        return value
    }

    /// Why a text is not JSON, and the byte offset where that was found.
    struct SyntaxError: Error, CustomStringConvertible {
        var offset: Int
        var reason: String
        var description: String { "not valid JSON at byte \(offset): \(reason)" }
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    var double: Double? { if case .number(let x) = self { return x } else { return nil } }
    var int: Int? { double.flatMap { $0 == $0.rounded() && abs($0) < 1e15 ? Int($0) : nil } }
    var bool: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    var string: String? { if case .string(let s) = self { return s } else { return nil } }
    var array: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }

    /// A recursive-descent reader over UTF-8 bytes.
    private struct Parser {
        let bytes: [UInt8]
        var at = 0

        func error(_ reason: String) -> SyntaxError { SyntaxError(offset: at, reason: reason) }

        mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
        }

        mutating func value(depth: Int) throws(SyntaxError) -> JSONValue {
            guard depth < 64 else { throw error("nested too deeply") }
            skipSpace()
            guard at < bytes.count else { throw error("the text ends where a value should be") }
            switch bytes[at] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            default: return .number(try number())
            }
        }

        mutating func literal(_ word: String) throws(SyntaxError) {
            let w = Array(word.utf8)
            guard at + w.count <= bytes.count, Array(bytes[at..<at + w.count]) == w else { throw error("expected \(word)") }
            at += w.count
        }

        mutating func expect(_ c: Character) throws(SyntaxError) {
            skipSpace()
            guard at < bytes.count, bytes[at] == c.asciiValue! else { throw error("expected '\(c)'") }
            at += 1
        }

        /// True (and consumed) when the next non-space byte is `c`.
        mutating func take(_ c: Character) -> Bool {
            skipSpace()
            guard at < bytes.count, bytes[at] == c.asciiValue! else { return false }
            at += 1
            return true
        }

        mutating func object(depth: Int) throws(SyntaxError) -> JSONValue {
            try expect("{")
            var members: [String: JSONValue] = [:]
            if take("}") { return .object(members) }
            repeat {
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw error("expected a member name") }
                let key = try string()
                try expect(":")
                members[key] = try value(depth: depth + 1)
            } while take(",")
            try expect("}")
            return .object(members)
        }

        mutating func array(depth: Int) throws(SyntaxError) -> JSONValue {
            try expect("[")
            var items: [JSONValue] = []
            if take("]") { return .array(items) }
            repeat { items.append(try value(depth: depth + 1)) } while take(",")
            try expect("]")
            return .array(items)
        }

        mutating func number() throws(SyntaxError) -> Double {
            let start = at
            while at < bytes.count, "+-0123456789.eE".utf8.contains(bytes[at]) { at += 1 }
            guard at > start, let text = String(validating: bytes[start..<at], as: UTF8.self),
                  text.first != "+", let x = Double(text), x.isFinite else {
                at = start
                throw error("expected a value")
            }
            return x
        }

        mutating func string() throws(SyntaxError) -> String {
            at += 1  // the opening quote
            var out: [UInt8] = []
            while at < bytes.count {
                let b = bytes[at]
                at += 1
                switch b {
                case UInt8(ascii: "\""):
                    guard let s = String(validating: out, as: UTF8.self) else { throw error("a string is not UTF-8") }
                    return s
                case UInt8(ascii: "\\"):
                    try escape(into: &out)
                case 0..<0x20:
                    throw error("a control character inside a string")
                default:
                    out.append(b)
                }
            }
            throw error("a string is not closed")
        }

        mutating func escape(into out: inout [UInt8]) throws(SyntaxError) {
            guard at < bytes.count else { throw error("a string is not closed") }
            let c = bytes[at]
            at += 1
            let simple: [UInt8: UInt8] = [0x22: 0x22, 0x5C: 0x5C, 0x2F: 0x2F, 0x62: 0x08, 0x66: 0x0C,
                                          0x6E: 0x0A, 0x72: 0x0D, 0x74: 0x09]
            if let s = simple[c] { out.append(s); return }
            guard c == UInt8(ascii: "u") else { throw error("an unknown escape in a string") }
            var unit = try hex4()
            if (0xD800..<0xDC00).contains(unit), at + 1 < bytes.count,
               bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") {
                at += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("an unpaired surrogate in a string") }
                unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(unit) else { throw error("an unpaired surrogate in a string") }
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
        }

        mutating func hex4() throws(SyntaxError) -> UInt32 {
            guard at + 4 <= bytes.count, let s = String(validating: bytes[at..<at + 4], as: UTF8.self),
                  let v = UInt32(s, radix: 16) else { throw error("a \\u escape needs four hex digits") }
            at += 4
            return v
        }
    }
}
