import Dispatch
import Synchronization

extension Array where Element: Sendable {
    /// `map` with the elements transformed at the same time, on as many
    /// threads as `DispatchQueue.concurrentPerform` gives; the results in
    /// element order. When transforms throw, the error of the first such
    /// element is thrown.
    public func concurrentMap<T: Sendable, E: Error>(_ transform: @Sendable (Element) throws(E) -> T) throws(E) -> [T] {
        let slots = Mutex([Result<T, E>?](repeating: nil, count: count))
        let items = self
        DispatchQueue.concurrentPerform(iterations: items.count) { i in
            let result: Result<T, E>
            do throws(E) { result = .success(try transform(items[i])) } catch { result = .failure(error) }
            slots.withLock { $0[i] = result }
        }
        return try slots.withLock { $0 }.map { slot throws(E) in try slot!.get() }
    }
}
