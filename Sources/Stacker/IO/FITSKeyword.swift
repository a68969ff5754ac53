/// One FITS header keyword (a "card" `NAME    = value / comment`) carried
/// from an input file to the output: exposure time, observation date,
/// object, instrument and the like.
///
/// `value` is the value's text: a string without its quotes (`''` already
/// turned into `'`), a number exactly as written in the header (`300.`,
/// `1.5E-3`), a logical as `T` or `F`. Only FITS reads and writes these;
/// other formats ignore them.
public struct FITSKeyword: Sendable, Equatable {
    /// The type of a keyword's value, which decides how it is written.
    public enum Kind: String, Sendable {
        /// A character string, written quoted.
        case string
        /// An integer, written as is.
        case integer
        /// A real number, written as is.
        case float
        /// `T` or `F`.
        case logical
    }

    /// The keyword name: 1…8 characters of `A–Z 0–9 - _` (upper case).
    public var name: String
    /// The value as text (see the type's description).
    public var value: String
    /// The card's comment, without the `/` (may be empty).
    public var comment: String
    /// How `value` is to be read and written.
    public var kind: Kind

    /// Creates a keyword record.
    public init(name: String, value: String, comment: String = "", kind: Kind) {
        self.name = name
        self.value = value
        self.comment = comment
        self.kind = kind
    }

    /// Names that describe the data layout of a FITS file. The encoder
    /// writes these itself and never takes them from a keyword list.
    static let structuralNames: Set<String> = [
        "SIMPLE", "BITPIX", "NAXIS", "EXTEND", "BZERO", "BSCALE", "BLANK", "END",
        "XTENSION", "PCOUNT", "GCOUNT", "GROUPS", "COMMENT", "HISTORY", "CONTINUE",
    ]

    /// True for a name the encoder reserves: the `structuralNames` and `NAXISn`.
    static func isStructural(_ name: String) -> Bool {
        structuralNames.contains(name) || (name.hasPrefix("NAXIS") && name.dropFirst(5).allSatisfy(\.isNumber))
    }

    /// The 80-character header card for this keyword, or nil when it cannot
    /// be written safely: a structural or malformed name, a number or logical
    /// whose text is not one. Strings and comments keep only printable ASCII
    /// (others become `?`); a string is cut to fit the card, the comment
    /// is cut to what room is left.
    var card: String? {
        let key = name.uppercased()
        guard (1...8).contains(key.utf8.count),
              key.utf8.allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x5F }),
              !Self.isStructural(key) else { return nil }
        let text: String
        switch kind {
        case .integer:
            guard Self.isInteger(value) else { return nil }
            text = Self.padLeft(value, to: 20)
        case .float:
            guard Self.isReal(value) else { return nil }
            text = Self.padLeft(value, to: 20)
        case .logical:
            guard value == "T" || value == "F" else { return nil }
            text = Self.padLeft(value, to: 20)
        case .string:
            // 80 − "NAME    = " (10) − two quotes = 68 characters of string.
            var inner = ""
            for ch in Self.printable(value) {
                let piece = ch == "'" ? "''" : String(ch)
                if inner.count + piece.count > 68 { break }
                inner += piece
            }
            while inner.count < 8 { inner += " " }  // the standard's minimum string width
            text = "'\(inner)'"
        }
        var card = String((key + String(repeating: " ", count: 8)).prefix(8)) + "= " + text
        let note = Self.printable(comment)
        if !note.isEmpty && card.count + 3 < 80 {
            card += " / " + String(note.prefix(80 - card.count - 3))
        }
        return card
    }

    /// `text` with every character outside printable ASCII (32…126) as `?`.
    static func printable(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.value >= 32 && $0.value <= 126 ? Character($0) : "?" })
    }

    /// `text` right-aligned in `width` columns (the fixed format for numbers).
    static func padLeft(_ text: String, to width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    /// True for a FITS integer: optional sign, then 1…20 digits.
    static func isInteger(_ text: String) -> Bool {
        var digits = Substring(text)
        if digits.first == "+" || digits.first == "-" { digits = digits.dropFirst() }
        return (1...20).contains(digits.count) && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// True for a FITS real: digits with an optional point and an optional
    /// exponent (`E` or `D`), at most 30 characters.
    static func isReal(_ text: String) -> Bool {
        guard (1...30).contains(text.count) else { return false }
        var rest = Substring(text)
        if rest.first == "+" || rest.first == "-" { rest = rest.dropFirst() }
        let mantissa = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        guard mantissa.contains(where: \.isNumber), mantissa.filter({ $0 == "." }).count <= 1 else { return false }
        rest = rest.dropFirst(mantissa.count)
        if rest.isEmpty { return true }
        guard let e = rest.first, "EeDd".contains(e) else { return false }
        rest = rest.dropFirst()
        if rest.first == "+" || rest.first == "-" { rest = rest.dropFirst() }
        return !rest.isEmpty && rest.allSatisfy { $0.isASCII && $0.isNumber }
    }
}
