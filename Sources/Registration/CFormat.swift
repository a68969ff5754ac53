#if canImport(Glibc)
import Glibc
#endif

/// `value` printed with a C format for one double (`"%.3g"`, `"%.1f"`), as
/// `String(format:)` would, without Foundation (whose loading cost every
/// run of the command-line tool a few milliseconds).
func cFormat(_ format: String, _ value: Double) -> String {
    var buffer = [CChar](repeating: 0, count: 64)
    let written = withVaList([value]) { args in
        buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, $0.count, format, args) }
    }
    guard written >= 0 else { return "\(value)" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
