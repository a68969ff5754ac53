import Dispatch
import Synchronization

/// Runs `body` for every index in `0..<count` on at most `threads` worker
/// threads, handing out indices in order, and returns the results in index
/// order whatever the scheduling.
func parallelMap<T: Sendable>(_ count: Int, threads: Int,
                              _ body: @Sendable (Int) -> T) -> [T] {
    guard count > 0 else { return [] }
    let results = Mutex<[Int: T]>([:])
    let next = Atomic<Int>(0)
    let workers = max(1, min(threads, count))
    DispatchQueue.concurrentPerform(iterations: workers) { _ in
        while true {
            let i = next.add(1, ordering: .relaxed).oldValue
            guard i < count else { break }
            let value = body(i)
            results.withLock { $0[i] = value }
        }
    }
    return results.withLock { r in (0..<count).map { r[$0]! } }
}

/// Runs `body` for every index in `0..<count` on at most `threads` threads,
/// handing out indices in order; returns when all have run.
func parallelForEach(_ count: Int, threads: Int, _ body: @Sendable (Int) -> Void) {
    guard count > 0 else { return }
    let next = Atomic<Int>(0)
    DispatchQueue.concurrentPerform(iterations: max(1, min(threads, count))) { _ in
        while true {
            let i = next.add(1, ordering: .relaxed).oldValue
            guard i < count else { break }
            body(i)
        }
    }
}
