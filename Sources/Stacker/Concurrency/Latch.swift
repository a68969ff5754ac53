import Dispatch
import Synchronization

/// A value published once by one thread and awaited by others: the
/// pipeline's workers start decoding while the calling thread still builds
/// the registrar, and wait here for it; the pipeline waits here for the
/// frame `EarlyDecode` reads on a thread of its own.
final class Latch<Value: Sendable>: Sendable {
    /// Entered once at creation and left by the first `publish`: `wait`
    /// returns once it is.
    private let published = DispatchGroup()
    private let outcome = Mutex<Result<Value, StackerError>?>(nil)

    init() { published.enter() }

    /// A latch dropped unpublished (its run failed before it got a value)
    /// leaves its group first: libdispatch traps on a group destroyed while
    /// entered. No one can be waiting: a waiter holds a reference.
    deinit {
        if outcome.withLock({ $0 == nil }) { published.leave() }
    }

    /// Publishes the value (or the failure every waiter then throws) and
    /// wakes the waiters. Only the first call counts.
    func publish(_ result: Result<Value, StackerError>) {
        let first = outcome.withLock { current -> Bool in
            guard current == nil else { return false }
            current = result
            return true
        }
        if first { published.leave() }
    }

    /// Drops the published value once no one will wait any more (its
    /// memory goes back to the heap for what comes next); a later `wait`
    /// would throw `.interrupted` (as would one waiting for a value never
    /// published).
    func release() {
        let first = outcome.withLock { current -> Bool in
            defer { current = .failure(.interrupted) }
            return current == nil
        }
        if first { published.leave() }
    }

    /// The published value, waiting until there is one.
    /// - Throws: the published failure.
    func wait() throws(StackerError) -> Value {
        published.wait()
        return try outcome.withLock { $0! }.get()
    }
}
