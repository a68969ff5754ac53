#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Stacker

/// SIGINT / SIGTERM handling: remove every temporary file (partial outputs,
/// frame stores), then exit 130 / 143, so an interrupted run leaves nothing
/// behind and never touches an existing output.
enum Signals {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    /// Installs the handlers; call once before starting work.
    static func install() {
        for (sig, code) in [(SIGINT, ExitCode.interrupted), (SIGTERM, ExitCode.terminated)] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                TemporaryFiles.shared.removeAll()
                let msg = Array("stack: interrupted; no output written\n".utf8)
                _ = msg.withUnsafeBytes { write(2, $0.baseAddress!, $0.count) }
                _exit(code.rawValue)
            }
            source.resume()
            sources.append(source)
        }
    }
}
