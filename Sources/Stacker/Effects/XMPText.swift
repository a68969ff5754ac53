/// Properties read from the text of an XMP packet without an XML parser:
/// enough for the few simple values depth readers need (GDepth's format and
/// data, Apple's `apdi:AuxiliaryImageType`), each found by its prefixed
/// name as the writers spell it.
enum XMPText {
    /// The value of property `name` in an XMP packet, written either as an
    /// attribute (`name="value"`) or as an element (`<name>value</name>`).
    static func value(of name: String, in xmp: [UInt8]) -> ArraySlice<UInt8>? {
        let key = Array(name.utf8)
        var i = xmp.startIndex
        while let at = find(key, in: xmp, from: i) {
            var k = at + key.count
            i = at + 1
            guard at > xmp.startIndex, [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "<")].contains(xmp[at - 1]) else { continue }
            if xmp[at - 1] == UInt8(ascii: "<") {
                guard k < xmp.count, xmp[k] == UInt8(ascii: ">") else { continue }
                k += 1
                guard let end = xmp[k...].firstIndex(of: UInt8(ascii: "<")) else { return nil }
                return xmp[k..<end]
            }
            while k < xmp.count, [0x20, 0x09, 0x0A, 0x0D].contains(xmp[k]) { k += 1 }
            guard k < xmp.count, xmp[k] == UInt8(ascii: "=") else { continue }
            k += 1
            while k < xmp.count, [0x20, 0x09, 0x0A, 0x0D].contains(xmp[k]) { k += 1 }
            guard k < xmp.count, xmp[k] == UInt8(ascii: "\"") || xmp[k] == UInt8(ascii: "'") else { continue }
            let quote = xmp[k]
            guard let end = xmp[(k + 1)...].firstIndex(of: quote) else { return nil }
            return xmp[(k + 1)..<end]
        }
        return nil
    }

    /// The same value as text, white space trimmed; nil when absent or empty.
    static func string(of name: String, in xmp: [UInt8]) -> String? {
        guard let value = value(of: name, in: xmp) else { return nil }
        let text = String(decoding: value, as: UTF8.self).trimmingWhiteSpace
        return text.isEmpty ? nil : text
    }

    /// The first index at or after `from` where `needle` starts in `hay`.
    private static func find(_ needle: [UInt8], in hay: [UInt8], from: Int) -> Int? {
        guard let first = needle.first, hay.count >= needle.count else { return nil }
        var i = from
        while i <= hay.count - needle.count {
            if hay[i] == first, hay[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}

private extension String {
    /// The string without leading and trailing spaces, tabs and line breaks.
    var trimmingWhiteSpace: String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        return String(drop(while: blank).reversed().drop(while: blank).reversed())
    }
}
