/// A file name exactly as the operating system sees it: a sequence of bytes
/// without NUL, which need not be UTF-8 (a Latin-1 `é` is the single byte
/// 0xE9), after swift-system's `FilePath`.
///
/// A Swift `String` cannot hold such a name: `CommandLine.arguments`,
/// `String(cString:)` and `String(decoding:as:)` replace invalid bytes with
/// U+FFFD, and `open` then looks for another file. Paths travel from `argv`
/// (or `readdir`) to the system call as `FilePath`, and become text only for
/// people, through `description`.
///
/// Every public function of this module that takes a file name takes any
/// `FilePathConvertible`, so a plain `String` (its UTF-8 bytes) works too.
public struct FilePath: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The name's bytes, without a terminating NUL; never contains NUL.
    public let bytes: [UInt8]

    /// The UTF-8 bytes of `string`, up to its first NUL (where the system
    /// call would have stopped reading it).
    public init(_ string: String) {
        self.init(bytes: string.utf8)
    }

    /// The name made of `bytes`, up to the first NUL.
    public init(bytes: some Sequence<UInt8>) {
        self.bytes = Array(bytes.lazy.prefix { $0 != 0 })
    }

    /// The bytes of the NUL-terminated C string at `cString`.
    public init(cString: UnsafePointer<CChar>) {
        var n = 0
        while cString[n] != 0 { n += 1 }
        self.bytes = UnsafeBufferPointer(start: cString, count: n).map { UInt8(bitPattern: $0) }
    }

    /// A path written as a string literal (its UTF-8 bytes).
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// True for the empty name.
    public var isEmpty: Bool { bytes.isEmpty }

    /// The name as a `String` when its bytes are valid UTF-8, else nil (no
    /// `String` spells it exactly).
    public var string: String? {
        String(validating: bytes, as: UTF8.self)
    }

    /// The name for people: valid UTF-8 as it is, every byte that is not
    /// part of a valid UTF-8 sequence as `\xHH` (`caf\xE9.jpg`). Control
    /// characters are left as they are (the CLI escapes them when it prints).
    public var description: String {
        if let valid = string { return valid }
        var out = ""
        var i = 0
        while i < bytes.count {
            // Valid UTF-8 cannot start with a stray byte, so the first
            // 1…4-byte slice that validates is the next character.
            let scalar = (1...4).lazy.filter { i + $0 <= self.bytes.count }
                .compactMap { n in String(validating: self.bytes[i..<(i + n)], as: UTF8.self).map { ($0, n) } }
                .first
            if let (text, n) = scalar {
                out += text
                i += n
            } else {
                out += "\\x" + hexByte(bytes[i])
                i += 1
            }
        }
        return out
    }

    /// Calls `body` with the name as a NUL-terminated C string, for a system call.
    public func withCString<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        try (bytes.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    /// The part after the last `/` (the whole name when there is none).
    public var lastComponent: FilePath {
        guard let slash = bytes.lastIndex(of: Self.slash) else { return self }
        return FilePath(bytes: bytes[(slash + 1)...])
    }

    /// The folder that holds the file: the part before the last `/`;
    /// `"."` for a bare name, `"/"` for a file at the root.
    public var folder: FilePath {
        guard let slash = bytes.lastIndex(of: Self.slash) else { return "." }
        return slash == 0 ? "/" : FilePath(bytes: bytes[..<slash])
    }

    /// `self` and `name` joined by one `/` (none added when `self` is empty
    /// or already ends in one).
    public func appending(_ name: FilePath) -> FilePath {
        guard let last = bytes.last, last != Self.slash else { return FilePath(bytes: bytes + name.bytes) }
        return FilePath(bytes: bytes + [Self.slash] + name.bytes)
    }

    /// The extension of the last component, lowercased: the text after its
    /// last `.`, or nil when it has none. Bytes that are not UTF-8 appear as
    /// in `description`.
    public var lowercasedExtension: String? {
        let name = lastComponent.bytes
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        return FilePath(bytes: name[(dot + 1)...]).description.lowercased()
    }

    /// Byte order (for valid UTF-8 the order of the code points).
    public static func < (a: FilePath, b: FilePath) -> Bool {
        a.bytes.lexicographicallyPrecedes(b.bytes)
    }

    private static let slash = UInt8(ascii: "/")
}

/// A value that names a file: a `String` (its UTF-8 bytes) or a `FilePath`.
/// The module's public functions take either.
public protocol FilePathConvertible {
    /// The file name as bytes.
    var filePath: FilePath { get }
}

extension FilePath: FilePathConvertible {
    /// The path itself.
    public var filePath: FilePath { self }
}

extension String: FilePathConvertible {
    /// The string's UTF-8 bytes as a path (see `FilePath.init(_:)`).
    public var filePath: FilePath { FilePath(self) }
}

/// Two upper-case hexadecimal digits for `byte`.
func hexByte(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
}
