#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Writes to stderr; shows a single rewritten progress line when stderr is a terminal.
final class Terminal: Sendable {
    /// True when stderr is a terminal and progress was not silenced.
    let showsProgress: Bool
    private let progressVisible = Mutex(false)

    /// A terminal writer; progress shows only on a TTY and when not `quiet`.
    init(quiet: Bool) {
        showsProgress = !quiet && isatty(2) == 1
    }

    /// Writes one whole line to stderr (clearing a progress line first).
    func line(_ text: String) {
        progressVisible.withLock { visible in
            var s = visible ? "\r\u{1B}[K" : ""
            s += text + "\n"
            write(s)
            visible = false
        }
    }

    /// Replaces the progress line (no-op when progress is not shown).
    func progress(_ text: String) {
        guard showsProgress else { return }
        progressVisible.withLock { visible in
            write("\r\u{1B}[K" + text)
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
