#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The temporary files this process has open (atomic-write temporaries,
/// frame stores), so that a signal handler can remove them before exit.
public final class TemporaryFiles: Sendable {
    /// The process-wide registry.
    public static let shared = TemporaryFiles()

    private let paths = Mutex<Set<FilePath>>([])

    /// Records a temporary file to remove on interruption.
    public func register(_ path: some FilePathConvertible) { paths.withLock { _ = $0.insert(path.filePath) } }

    /// Forgets a temporary file (it was renamed or removed normally).
    public func unregister(_ path: some FilePathConvertible) { paths.withLock { _ = $0.remove(path.filePath) } }

    /// Removes every registered file; called on SIGINT / SIGTERM.
    public func removeAll() {
        let all = paths.withLock { p -> Set<FilePath> in let c = p; p.removeAll(); return c }
        for p in all { _ = p.withCString { unlink($0) } }
    }
}
