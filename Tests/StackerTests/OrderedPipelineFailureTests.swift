import Synchronization
import Testing
@testable import Stacker

/// A failed run must end with every worker joined and every Dispatch object
/// balanced: libdispatch traps (SIGILL) when a semaphore is destroyed below
/// its initial value or a group is destroyed while entered, so these tests
/// fail by crashing the test process if either comes back.
@Suite("ordered pipeline and latch on failure")
struct OrderedPipelineFailureTests {
    struct Stop: Error {}

    @Test("a consumer that throws while results wait ahead ends cleanly, 1–4 threads",
          arguments: 1...4)
    func consumerFailure(threads: Int) throws {
        for round in 0..<200 {
            let failAt = round % 7
            let produced = Atomic<Int>(0)
            var consumed = 0
            #expect(throws: Stop.self) {
                try orderedPipeline(count: 24, threads: threads, window: threads + 3, produce: { i in
                    produced.add(1, ordering: .relaxed)
                    return i
                }) { i, value in
                    #expect(i == value)
                    if i == failAt { throw Stop() }
                    consumed += 1
                }
            }
            #expect(consumed == failAt)
            // Workers stop taking indices: at most the window runs past the failure.
            #expect(produced.load(ordering: .relaxed) <= failAt + 1 + threads + 3)
        }
    }

    @Test("a prelude that throws while workers have filled the window ends cleanly")
    func preludeFailure() throws {
        for round in 0..<200 {
            let threads = 1 + round % 4
            #expect(throws: Stop.self) {
                try orderedPipeline(count: 16, threads: threads, window: threads + 1,
                                    prelude: { throw Stop() },
                                    produce: { $0 }) { _, _ in Issue.record("consume ran after a failed prelude") }
            }
        }
    }

    @Test("a latch dropped without a value does not trap")
    func unpublishedLatch() throws {
        for _ in 0..<100 { _ = Latch<Int>() }
        let latch = Latch<Int>()
        latch.publish(.success(3))
        #expect(try latch.wait() == 3)
    }
}
