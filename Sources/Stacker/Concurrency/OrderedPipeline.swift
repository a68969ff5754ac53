import Dispatch
import Synchronization

/// Runs `produce` for indices `0..<count` on `threads` worker threads while
/// the calling thread runs `consume` on the results **in index order**, as
/// soon as each is ready. At most `window` results are produced ahead of
/// the consumer, so memory stays bounded whatever the burst length, and the
/// consumer's work (folding, storing) overlaps the workers' (decode, warp).
///
/// `prelude` runs on the calling thread once the workers have started and
/// before the first `consume`: set-up the workers need only later (they wait
/// for it themselves, see `Latch`) overlaps their first decodes.
///
/// If `prelude` or `consume` throws, the workers stop taking new indices and
/// the error is rethrown once every worker has returned: no thread still
/// runs `produce`, or waits, when this function returns or throws. Results
/// produced but not consumed are dropped.
func orderedPipeline<T: Sendable>(count: Int, threads: Int, window: Int,
                                  prelude: () throws -> Void = {},
                                  produce: @escaping @Sendable (Int) -> T,
                                  consume: (Int, T) throws -> Void) throws {
    guard count > 0 else { return }
    let workers = max(1, min(threads, count))
    let results = Mutex<[Int: T]>([:])
    let next = Atomic<Int>(0)
    let cancelled = Atomic<Bool>(false)
    let ready = DispatchSemaphore(value: 0)
    // The window's permits are signalled in rather than given as the
    // initial value: libdispatch traps when a semaphore is destroyed with a
    // value below its initial one, and a failed run ends with permits still
    // held by results that were produced but never consumed.
    let permits = DispatchSemaphore(value: 0)
    for _ in 0..<max(workers, window) { permits.signal() }
    let group = DispatchGroup()
    // Workers are threads of their own, not Dispatch's: they block on the
    // window for long stretches, and libdispatch on Linux counts a blocked
    // thread against its pool, which would leave the bands of the
    // consumer's `concurrentPerform` (the average fold) without threads.
    for _ in 0..<workers {
        group.enter()
        startWorkerThread {
            defer { group.leave() }
            while true {
                permits.wait()
                let i = next.add(1, ordering: .relaxed).oldValue
                guard i < count, !cancelled.load(ordering: .relaxed) else {
                    permits.signal()
                    break
                }
                let value = produce(i)
                results.withLock { $0[i] = value }
                ready.signal()
            }
        }
    }
    defer { group.wait() }
    do {
        try prelude()
        for i in 0..<count {
            var value: T?
            while value == nil {
                value = results.withLock { $0.removeValue(forKey: i) }
                if value == nil { ready.wait() }
            }
            try consume(i, value!)
            permits.signal()
        }
    } catch {
        cancelled.store(true, ordering: .relaxed)
        for _ in 0..<workers { permits.signal() }
        throw error
    }
}
