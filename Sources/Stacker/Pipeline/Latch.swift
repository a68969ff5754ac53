import Foundation

/// A value published once by one thread and awaited by others: the
/// pipeline's workers start decoding while the calling thread still builds
/// the registrar, and wait here for it; the pipeline waits here for the
/// frame `EarlyDecode` reads on a thread of its own.
final class Latch<Value: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var outcome: Result<Value, StackerError>?

    /// Publishes the value (or the failure every waiter then throws) and
    /// wakes the waiters. Only the first call counts.
    func publish(_ result: Result<Value, StackerError>) {
        condition.lock()
        if outcome == nil { outcome = result }
        condition.broadcast()
        condition.unlock()
    }

    /// Drops the published value once no one will wait any more (its
    /// memory goes back to the heap for what comes next); a later `wait`
    /// would throw `.interrupted`.
    func release() {
        condition.lock()
        outcome = .failure(.interrupted)
        condition.unlock()
    }

    /// The published value, waiting until there is one.
    /// - Throws: the published failure.
    func wait() throws(StackerError) -> Value {
        condition.lock()
        defer { condition.unlock() }
        while outcome == nil { condition.wait() }
        return try outcome!.get()
    }
}
