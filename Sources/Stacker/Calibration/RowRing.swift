/// Rows of `width` floats, row `y` kept in slot `y mod 16`: the working
/// buffers of the one-pass debayers (`RCDDebayer`, `AHDDebayer`), where each
/// step reads only the last few rows of the one before. The owner calls
/// `deallocate`.
struct RowRing {
    static let count = 16
    let storage: UnsafeMutablePointer<Float>
    let width: Int

    init(width: Int, filledWith value: Float) {
        self.width = width
        storage = .allocate(capacity: Self.count * width)
        storage.initialize(repeating: value, count: Self.count * width)
    }

    /// Row `y`'s slot.
    func callAsFunction(_ y: Int) -> UnsafeMutablePointer<Float> { storage + (y & (Self.count - 1)) * width }
    /// The slots of the rows in `range`, in order.
    func rows(_ range: ClosedRange<Int>) -> [UnsafeMutablePointer<Float>] { range.map { self($0) } }
    func deallocate() { storage.deallocate() }
}
