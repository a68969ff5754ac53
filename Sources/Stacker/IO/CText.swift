/// Text that C code wrote into a fixed-size `char` buffer.
enum CText {
    /// The characters of `buffer` before its first NUL, as UTF-8 (invalid
    /// bytes become U+FFFD), on one line (line breaks become spaces).
    static func string(_ buffer: [CChar]) -> String {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
