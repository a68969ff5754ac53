/// Text that C code wrote into a fixed-size `char` buffer.
enum CText {
    /// The characters of `buffer` before its first NUL, as UTF-8 (invalid
    /// bytes become U+FFFD), on one line (each line break becomes a space).
    static func string(_ buffer: [CChar]) -> String {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(String(decoding: bytes, as: UTF8.self).map { $0.isNewline ? " " : $0 })
    }
}
