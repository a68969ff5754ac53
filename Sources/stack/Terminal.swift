#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Writes to stderr; shows a single rewritten progress line when stderr is a terminal.
///
/// Every message goes through `line` or `progress`, which escape its control
/// characters (`escaped`): a file name holding a newline or an escape
/// sequence can neither split a message nor drive the terminal.
final class Terminal: Sendable {
    /// True when stderr is a terminal and progress was not silenced.
    let showsProgress: Bool
    private let progressVisible = Mutex(false)

    /// A terminal writer; progress shows only on a TTY and when not `quiet`.
    init(quiet: Bool) {
        showsProgress = !quiet && isatty(2) == 1
    }

    /// Writes `text` to stderr as one whole line, control characters
    /// escaped (clearing a progress line first).
    func line(_ text: String) {
        progressVisible.withLock { visible in
            var s = visible ? "\r\u{1B}[K" : ""
            s += Self.escaped(text) + "\n"
            write(s)
            visible = false
        }
    }

    /// Replaces the progress line with `text`, control characters escaped
    /// (no-op when progress is not shown).
    func progress(_ text: String) {
        guard showsProgress else { return }
        progressVisible.withLock { visible in
            write("\r\u{1B}[K" + Self.escaped(text))
            visible = true
        }
    }

    /// Removes the progress line.
    func clearProgress() {
        progressVisible.withLock { visible in
            if visible { write("\r\u{1B}[K") }
            visible = false
        }
    }

    /// `text` with its control characters written out: `\n`, `\r`, `\t`;
    /// other C0 characters and DEL as `\xHH`; C1 characters and the Unicode
    /// line and paragraph separators as `\u{HH}`. Everything else, and bytes
    /// already escaped in a `FilePath.description`, is kept as it is.
    static func escaped(_ text: String) -> String {
        var out = ""
        for u in text.unicodeScalars {
            switch u.value {
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x00..<0x20, 0x7F: out += (u.value < 0x10 ? "\\x0" : "\\x") + String(u.value, radix: 16, uppercase: true)
            case 0x80..<0xA0, 0x2028, 0x2029: out += "\\u{" + String(u.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }

    private func write(_ s: String) {
        var bytes = Array(s.utf8)
        bytes.withUnsafeMutableBytes { b in
            var off = 0
            while off < b.count {
                let n = Glibc.write(2, b.baseAddress! + off, b.count - off)
                if n <= 0 { if n < 0 && errno == EINTR { continue }; return }
                off += n
            }
        }
    }
}
