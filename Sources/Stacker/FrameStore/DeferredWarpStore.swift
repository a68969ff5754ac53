public import Registration
import Dispatch
import Synchronization

/// The frames of a robust kernel kept as they were decoded, each with its
/// warp, and warped onto the reference grid a strip of rows at a time as the
/// reduce reads them, instead of warped into a `FrameStore` as they come.
///
/// For a burst of 8-bit frames aligned by translations this holds less and
/// does less: a JPEG's Y, Cb, Cr bytes take 1.5 bytes a pixel against the
/// store's 2 (8-bit Y, 16-bit chroma), and no pass writes the warped burst
/// to memory and reads it back (480 MB at 20 × 12 MP): each strip is warped
/// and quantised into a small per-thread `FrameStore` that stays in cache,
/// and reduced there. The output is bit for bit that of a `FrameStore` given
/// the same frames: the same warp, quantisation and kernel run on every row.
///
/// A frame whose warper does not read bytes (a frame converted to floats),
/// or whose bytes would take what is held past `memoryLimit`, is warped at
/// once into a one-frame `FrameStore` of its own (a memory-mapped temporary
/// file when even that does not fit), whose rows the strips then copy.
///
/// **Concurrency.** As `FrameStore`: `store` may run on several threads for
/// different indices, never at the same time as `reduceImage`.
public final class DeferredWarpStore: @unchecked Sendable {
    /// Width of the reference grid.
    public let width: Int
    /// Height of the reference grid.
    public let height: Int
    /// Channels per frame.
    public let channels: Int
    /// Number of frame slots.
    public let frameCount: Int
    /// Bits each warped sample is quantised to, as in `FrameStore`.
    public let depth: FrameStore.SampleDepth
    private let memoryLimit: Int
    /// The process's resident bytes within which frames are held, or nil.
    private let residentLimit: Int?
    private let temporaryDirectory: FilePath

    /// How one frame is kept.
    private enum Kept: Sendable {
        /// As decoded, warped when read.
        case deferred(RowWarper, gains: [(gain: Float, offset: Float)])
        /// Already warped, in a one-frame store.
        case warped(FrameStore)
    }
    private struct Slots: Sendable {
        var kept: [Kept?]
        /// Bytes in memory per slot, and their sum.
        var bytes: [Int]
        var total = 0
    }
    private let slots: Mutex<Slots>

    /// Bytes of warped samples a strip holds: rows are added to a strip
    /// (up to `FrameStore.stripRows`) while its samples stay within this.
    /// Each strip calls every frame's warp, gains and row writes once, and
    /// sets up one reduce, so one-row strips pay those fixed costs on every
    /// row for every frame: a 512 KB budget, which held a strip in a core's
    /// cache but gave one-row strips past about 40 frames of 12 MP RGB, made
    /// the 200-frame mode 1.4–1.8× slower per frame than the 20-frame one.
    /// At this budget a strip is 8 rows up to about 300 such frames; each
    /// reducing thread holds one strip. The output does not depend on it.
    static let stripBudget = 24 << 20

    /// A store for `frameCount` frames warped onto a `width` × `height` grid
    /// of `channels` channels, quantised to `depth` when they are reduced;
    /// the frames held take at most `memoryLimit` bytes, the rest go to
    /// temporary files in `temporaryDirectory` ("" = current folder).
    /// With `residentLimit`, a frame is also held in memory only while the
    /// whole process's resident memory plus the frame stays within it (the
    /// reference, the frames in flight and the other stores count too), so
    /// `--memory-limit` bounds the run's peak rather than this store alone.
    /// - Throws: `StackerError.invalidInput` for non-positive sizes.
    public init(width: Int, height: Int, channels: Int, frameCount: Int, depth: FrameStore.SampleDepth,
                memoryLimit: Int, residentLimit: Int? = nil, temporaryDirectory: some FilePathConvertible) throws {
        guard width > 0, height > 0, channels > 0, frameCount > 0 else {
            throw StackerError.invalidInput(
                path: "", reason: "frame store size \(width)×\(height)×\(channels), \(frameCount) frames, must be positive")
        }
        self.width = width
        self.height = height
        self.channels = channels
        self.frameCount = frameCount
        self.depth = depth
        self.memoryLimit = memoryLimit
        self.residentLimit = residentLimit
        self.temporaryDirectory = temporaryDirectory.filePath
        slots = Mutex(Slots(kept: Array(repeating: nil, count: frameCount), bytes: Array(repeating: 0, count: frameCount)))
    }

    /// How many distinct frame indices have been stored.
    public var storedFrameCount: Int { slots.withLock { $0.kept.reduce(0) { $0 + ($1 == nil ? 0 : 1) } } }

    /// How many of the stored frames were warped at once into a one-frame
    /// store rather than kept as decoded.
    public var warpedFrameCount: Int {
        slots.withLock { s in
            s.kept.reduce(0) { n, k in
                if case .warped = k { return n + 1 }
                return n
            }
        }
    }

    /// Keeps frame `index`, to be warped by `frame` with per-channel `gains`
    /// applied (see `Normalization`) when it is reduced. Replaces whatever
    /// that index held. Callable from several threads for different indices.
    /// - Throws: `StackerError.invalidInput` when the index is out of range or
    ///   the frame's grid or channel count does not match the store; the
    ///   one-frame store's errors when the frame is warped at once.
    public func store(frame index: Int, warping frame: RowWarper,
                      gains: [(gain: Float, offset: Float)] = []) throws {
        try FrameStore.check(slot: index, frameCount: frameCount, for: frame, width: width, height: height,
                             channels: channels)
        let warpedBytes = width * height * channels * depth.bytes
        // Read before the lock; two threads storing at once may both see
        // the same figure, so the process can pass it by one frame.
        let residentRoom = residentLimit.flatMap { limit in Platform.residentBytes().map { limit - $0 } }
        // Decided and reserved under the lock, so threads storing at once
        // never together pass the limit.
        enum Choice { case keep, warpInMemory, warpToFile }
        let choice: Choice = slots.withLock { s in
            s.total -= s.bytes[index]
            s.bytes[index] = 0
            s.kept[index] = nil
            let room = min(memoryLimit - s.total, residentRoom ?? .max)
            let choice: Choice, bytes: Int
            if frame.readsBytes && frame.heldBytes <= room {
                (choice, bytes) = (.keep, frame.heldBytes)
            } else if warpedBytes <= room {
                (choice, bytes) = (.warpInMemory, warpedBytes)
            } else {
                (choice, bytes) = (.warpToFile, 0)
            }
            s.bytes[index] = bytes
            s.total += bytes
            return choice
        }
        let kept: Kept
        if choice == .keep {
            kept = .deferred(frame, gains: gains)
        } else {
            let one = try FrameStore(width: width, height: height, channels: channels, frameCount: 1, depth: depth,
                                     memoryLimit: choice == .warpInMemory ? .max : 0,
                                     temporaryDirectory: temporaryDirectory)
            try one.store(frame: 0, warping: frame, gains: gains)
            kept = .warped(one)
        }
        slots.withLock { $0.kept[index] = kept }
    }

    /// Drops frame `index` (out of range: nothing) and gives its memory
    /// back: the slot counts as never stored. For frames left out after
    /// they were stored (`--keep`).
    public func drop(frame index: Int) {
        guard index >= 0, index < frameCount else { return }
        slots.withLock { s in
            s.total -= s.bytes[index]
            s.bytes[index] = 0
            s.kept[index] = nil
        }
    }

    /// Drops every frame: each slot counts as never stored again.
    public func removeAll() {
        slots.withLock { s in
            s = Slots(kept: Array(repeating: nil, count: frameCount), bytes: Array(repeating: 0, count: frameCount))
        }
    }

    /// Rows per strip: as many as keep a strip's samples within
    /// `stripBudget`, from 1 to `FrameStore.stripRows`.
    var stripRows: Int {
        let rowBytes = frameCount * channels * width * depth.bytes
        return max(1, min(FrameStore.stripRows, Self.stripBudget / max(1, rowBytes)))
    }

    /// Reduces the stored frames with `kernel`, per output pixel over the
    /// frames that cover it: `FrameStore.reduce`'s image, bit for bit, for
    /// the same frames.
    /// - Parameters:
    ///   - weights: one weight per frame slot (≥ 0, finite).
    ///   - threads: how many threads reduce strips at once; the output does not depend on it.
    /// - Throws: `StackerError.invalidInput` for bad weights or kernel
    ///   parameters; `.stackingFailed` when a strip's memory cannot be had.
    public func reduceImage(_ kernel: RobustKernel, weights: [Float], threads: Int) throws -> Image {
        try reduceTimed(kernel, weights: weights, threads: threads).image
    }

    /// `reduceImage`, with the part of the threads' time spent warping and
    /// quantising the strips (0…1), for the run's stage timings. With
    /// `rows`, only the strips holding those rows are warped and reduced;
    /// the other rows of the image are left unset.
    public func reduceTimed(_ kernel: RobustKernel, weights: [Float], threads: Int, rows wanted: Range<Int>? = nil) throws
        -> (image: Image, warpShare: Double) {
        try FrameStore.checkReduction(kernel, weights: weights, frameCount: frameCount)
        let network = FrameStore.network(for: kernel, frameCount: frameCount, limit: FrameStore.networkLimit)
        let kept = slots.withLock { $0.kept }
        let w = width, h = height, c = channels, n = frameCount
        let rowsPerStrip = stripRows
        let strips = FrameStore.strips(holding: wanted, height: h, stripRows: rowsPerStrip)
        let workers = max(1, min(threads, strips.count))
        // One strip store per thread, made here so a failure throws.
        let stripStores = try (0..<workers).map { _ in
            try FrameStore(width: w, height: rowsPerStrip, channels: c, frameCount: n, depth: depth,
                           memoryLimit: .max, temporaryDirectory: "")
        }
        let equalWeights = weights.allSatisfy { $0 == weights.first }
        let times = Mutex((warp: Duration.zero, all: Duration.zero))
        // Every pixel of every output plane is written once, by one thread.
        let arrays = [[Float]](uninitialized: c, count: w * h) { outputs in
            let whole = StripJob(store: stripStores[0], kernel: kernel, weights: weights, network: network,
                                 outputs: outputs, counts: nil, equalWeights: equalWeights)
            let nextStrip = Atomic<Int>(strips.lowerBound)
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                var warping = Duration.zero
                let began = ContinuousClock.now
                whole.populateOutputs(slice: worker, of: workers, count: w * h)
                defer {
                    let all = ContinuousClock.now - began
                    times.withLock { $0.warp += warping; $0.all += all }
                }
                let strip = stripStores[worker]
                let band = WarpBand(width: w, channels: c, maxRows: rowsPerStrip)
                let scratch = StripScratch(frames: n, channels: c, width: w)
                while true {
                    let s = nextStrip.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard s < strips.upperBound else { break }
                    let rows = s * rowsPerStrip..<min(h, (s + 1) * rowsPerStrip)
                    let fill = ContinuousClock.now
                    for (f, frame) in kept.enumerated() {
                        switch frame {
                        case .deferred(let warper, let gains):
                            strip.store(frame: f, warping: warper, rows: rows, at: 0, gains: gains, band: band)
                        case .warped(let one):
                            strip.copyRows(rows, from: one, into: f)
                        case nil:
                            break       // never stored: its runs stay empty
                        }
                    }
                    warping += ContinuousClock.now - fill
                    whole.reading(strip, outputFrom: rows.lowerBound).reduceRows(0..<rows.count, scratch)
                }
            }
        }
        let image = Image(width: w, height: h, planes: arrays.map { Plane(width: w, height: h, pixels: $0) })
        let (warp, all) = times.withLock { $0 }
        return (image, all > .zero ? warp / all : 0)
    }
}
