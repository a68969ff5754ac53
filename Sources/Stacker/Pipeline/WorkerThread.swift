#if canImport(Glibc)
import Glibc
#endif

/// Starts `body` on a detached thread of its own with an 8 MiB stack: the
/// pipeline's workers and `EarlyDecode`. A POSIX thread rather than
/// Foundation's `Thread`, so the command-line tool does not load Foundation
/// (`stack --version` went from 14 to 8 ms, exec to exit).
func startWorkerThread(_ body: @escaping @Sendable () -> Void) {
    let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstacksize(&attributes, 8 << 20)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    var thread = pthread_t()
    let rc = pthread_create(&thread, &attributes, { raw in
        let body = Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue()
        body.run()
        return nil
    }, box)
    // Without a thread the work cannot be done at all, as when memory runs out.
    precondition(rc == 0, "cannot start a worker thread (pthread_create: \(rc))")
}

/// The closure handed to a new thread.
private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
