import Dispatch
public import Registration
import Synchronization

/// The incremental weighted-average kernel: folds frames one at a time into a
/// running mean, so the burst is never held in memory.
///
/// Per pixel and channel, with frame weight `w` and coverage `c` (0…1):
/// `W += w·c;  mean += (w·c / W) · (x − mean)`. This is the classic running
/// average `avg = (avg·n + x)/(n + 1)` generalised to weights and coverage; it
/// never forms the large sum `Σ w·x`, so it stays accurate in `Float` over
/// hundreds of frames. Pixels a frame does not cover get no weight, so
/// borders of shifted frames do not darken.
///
/// `add(warping:)` warps and folds a frame in one pass over row bands on
/// all cores: each band is resampled into a small buffer and folded while
/// it is still in cache, so no warped copy of the frame is ever made. Every
/// pixel is computed alone, so the result does not depend on the split.
public struct AverageAccumulator: Sendable {
    /// Width of the output grid.
    public let width: Int
    /// Height of the output grid.
    public let height: Int
    /// Number of channels.
    public let channels: Int
    /// How many frames have been folded in.
    public private(set) var frameCount = 0
    /// Mean planes then the weight sum, `channels + 1` planes of `width × height`.
    private var storage: AccumulatorStorage

    /// An empty accumulator for `channels` planes of `width × height`.
    public init(width: Int, height: Int, channels: Int) {
        self.width = width
        self.height = height
        self.channels = channels
        storage = AccumulatorStorage(planes: channels + 1, planeSize: width * height)
    }

    /// The running weighted mean, one plane per channel (a copy).
    public var mean: [Plane] { (0..<channels).map(plane) }

    /// The running sum of weights `Σ w·c` per pixel, shared by all channels (a copy).
    public var weightSum: Plane { plane(channels) }

    private func plane(_ index: Int) -> Plane {
        let n = width * height
        // Emptied by `removeAll`: the zero mean of a fresh accumulator.
        guard !storage.isEmpty else { return Plane(width: width, height: height, pixels: [Float](repeating: 0, count: n)) }
        let start = storage.plane(index)
        return Plane(width: width, height: height, pixels: Array(UnsafeBufferPointer(start: start, count: n)))
    }

    /// Folds one aligned frame into the mean.
    /// - Parameters:
    ///   - planes: the frame on the output grid, one plane per channel.
    ///   - coverage: 0…1 per pixel, where the frame has data (nil: all covered).
    ///   - weight: the frame weight (> 0).
    public mutating func add(_ planes: [Plane], coverage: Plane?, weight: Float = 1) {
        precondition(planes.count == channels, "frame has \(planes.count) channels, accumulator \(channels)")
        precondition(weight.isFinite && weight > 0, "frame weight \(weight) must be positive")
        makeUnique()
        let n = width * height
        var ratio = [Float](repeating: 0, count: n)
        ratio.withUnsafeMutableBufferPointer { r in
            if let coverage {
                coverage.pixels.withUnsafeBufferPointer { c in
                    Self.updateWeights(storage.plane(channels), r.baseAddress!, coverage: c.baseAddress, weight: weight, count: n)
                }
            } else {
                Self.updateWeights(storage.plane(channels), r.baseAddress!, coverage: nil, weight: weight, count: n)
            }
            for ch in 0..<channels {
                planes[ch].pixels.withUnsafeBufferPointer { x in
                    Self.fold(storage.plane(ch), x.baseAddress!, r.baseAddress!, count: n)
                }
            }
        }
        frameCount += 1
    }

    /// Thread-seconds one `add(warping:)` spent resampling and folding.
    public struct FoldTimes: Sendable {
        /// Summed over bands: resampling the frame.
        public var warp: Double = 0
        /// Summed over bands: updating weights and means.
        public var fold: Double = 0
    }

    /// Warps `frame` onto the output grid and folds it into the mean, band
    /// by band on all cores; the same result as `add` of `Warper.warp`'s
    /// planes and coverage, bit for bit.
    /// - Parameters:
    ///   - frame: the frame and its transform, on this accumulator's grid.
    ///   - weight: the frame weight (> 0).
    ///   - gains: per channel `x′ = gain · x + offset`, applied to the warped
    ///     samples (see `Normalization`); empty for none.
    ///   - threads: how many threads share the bands.
    /// - Returns: the thread-seconds spent in each half.
    @discardableResult
    public mutating func add(warping frame: RowWarper, weight: Float = 1,
                             gains: [(gain: Float, offset: Float)] = [],
                             threads: Int = Platform.processorCount) -> FoldTimes {
        add(warping: [(frame, weight, gains)], threads: threads)
    }

    /// One frame of a batch for `add(warping:threads:)`: the frame, its weight (> 0) and gains.
    public typealias BatchFrame = (frame: RowWarper, weight: Float, gains: [(gain: Float, offset: Float)])

    /// Folds `frames` in order, as that many calls of `add(warping:weight:gains:threads:)`
    /// would, with the same bits, in one pass over the accumulator: each band
    /// of the mean and weights is read from memory once and takes every
    /// frame's rows while it is in cache, so a batch of k frames moves 1/k
    /// of the accumulator traffic.
    @discardableResult
    public mutating func add(warping frames: [BatchFrame], threads: Int = Platform.processorCount)
        -> FoldTimes {
        for f in frames {
            precondition(f.frame.channels == channels, "frame has \(f.frame.channels) channels, accumulator \(channels)")
            precondition(f.frame.width == width && f.frame.height == height,
                         "frame grid \(f.frame.width)×\(f.frame.height), accumulator \(width)×\(height)")
            precondition(f.weight.isFinite && f.weight > 0, "frame weight \(f.weight) must be positive")
        }
        makeUnique()
        guard width > 0, height > 0 else { frameCount += frames.count; return FoldTimes() }
        let store = storage, w = width, h = height, ch = channels
        // About 16 K samples per band pass: the scratch planes stay in L2.
        let rowsPerPass = max(1, min(h, 16_384 / w))
        let workers = max(1, threads)
        let bands = min((h + rowsPerPass - 1) / rowsPerPass, 4 * workers)
        let rowsPerBand = (h + bands - 1) / bands
        let times = Mutex(FoldTimes())
        parallelForEach(bands, threads: workers) { band in
            let y0 = band * rowsPerBand, y1 = min(h, y0 + rowsPerBand)
            guard y0 < y1 else { return }
            let scratch = UnsafeMutablePointer<Float>.allocate(capacity: (ch + 2) * rowsPerPass * w)
            defer { scratch.deallocate() }
            let samples = (0..<ch).map { scratch + $0 * rowsPerPass * w }
            let coverage = scratch + ch * rowsPerPass * w, ratio = coverage + rowsPerPass * w
            var local = FoldTimes()
            var y = y0
            while y < y1 {
                let rows = y..<min(y1, y + rowsPerPass)
                let n = rows.count * w, offset = rows.lowerBound * w
                for f in frames {
                    // A translation or a two-pass warp covers one run of
                    // columns per row, known without a coverage plane; other
                    // transforms write one.
                    let knownRuns = f.frame.knowsCoveredColumns
                    let t0 = ContinuousClock.now
                    f.frame.warp(rows: rows, into: samples, coverage: knownRuns ? nil : coverage)
                    let t1 = ContinuousClock.now
                    if knownRuns {
                        for y in rows {
                            let run = f.frame.coveredColumns(row: y) ?? 0..<0
                            let at = (y - rows.lowerBound) * w
                            Self.updateWeights(store.plane(ch) + offset + at, ratio + at, covered: run,
                                               weight: f.weight, width: w)
                        }
                    } else {
                        Self.updateWeights(store.plane(ch) + offset, ratio, coverage: coverage, weight: f.weight, count: n)
                    }
                    Normalization.apply(f.gains, to: samples, count: n)
                    for c in 0..<ch { Self.fold(store.plane(c) + offset, samples[c], ratio, count: n) }
                    local.warp += Self.seconds(t1 - t0)
                    local.fold += Self.seconds(ContinuousClock.now - t1)
                }
                y = rows.upperBound
            }
            times.withLock { $0.warp += local.warp; $0.fold += local.fold }
        }
        frameCount += frames.count
        return times.withLock { $0 }
    }

    /// Empties the accumulator, as if just made, and gives its memory back
    /// to the system when no copy shares it; the next fold maps it afresh.
    public mutating func removeAll() {
        storage = AccumulatorStorage(planes: 0, planeSize: 0)
        frameCount = 0
    }

    /// Gives this value its own storage before a mutation (copy on write),
    /// mapped again after `removeAll`.
    private mutating func makeUnique() {
        if storage.isEmpty {
            storage = AccumulatorStorage(planes: channels + 1, planeSize: width * height)
        } else if !isKnownUniquelyReferenced(&storage) {
            storage = storage.copy()
        }
    }

    private static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }

    /// `W += w·c`, `r = w·c / W` (0 where W is still 0), 16 lanes at a time.
    private static func updateWeights(_ wsum: UnsafeMutablePointer<Float>, _ r: UnsafeMutablePointer<Float>,
                                      coverage: UnsafePointer<Float>?, weight: Float, count n: Int) {
        let lanes = 16
        let vw = SIMD16<Float>(repeating: weight)
        var i = 0
        let wp = UnsafeMutableRawPointer(wsum)
        let rp = UnsafeMutableRawPointer(r)
        while i + lanes <= n {
            let c = coverage.map { UnsafeRawPointer($0 + i).loadUnaligned(as: SIMD16<Float>.self) }
                ?? SIMD16<Float>(repeating: 1)
            let wc = vw * c
            let w = wp.loadUnaligned(fromByteOffset: i * 4, as: SIMD16<Float>.self) + wc
            wp.storeBytes(of: w, toByteOffset: i * 4, as: SIMD16<Float>.self)
            let safe = w.replacing(with: 1, where: w .<= 0)
            let q = (wc / safe).replacing(with: 0, where: w .<= 0)
            rp.storeBytes(of: q, toByteOffset: i * 4, as: SIMD16<Float>.self)
            i += lanes
        }
        while i < n {
            let wc = weight * (coverage?[i] ?? 1)
            wsum[i] += wc
            r[i] = wsum[i] > 0 ? wc / wsum[i] : 0
            i += 1
        }
    }

    /// `updateWeights` for one row covered exactly on `covered` (coverage 1
    /// there, 0 elsewhere), with the same bits: outside the run `W` stays
    /// and `r` is 0.
    private static func updateWeights(_ wsum: UnsafeMutablePointer<Float>, _ r: UnsafeMutablePointer<Float>,
                                      covered: Range<Int>, weight: Float, width: Int) {
        let run = covered.clamped(to: 0..<width)
        r.update(repeating: 0, count: run.isEmpty ? width : run.lowerBound)
        guard !run.isEmpty else { return }
        (r + run.upperBound).update(repeating: 0, count: width - run.upperBound)
        updateWeights(wsum + run.lowerBound, r + run.lowerBound, coverage: nil, weight: weight, count: run.count)
    }

    /// `m += r · (x − m)`, 16 lanes at a time.
    private static func fold(_ m: UnsafeMutablePointer<Float>, _ x: UnsafePointer<Float>,
                             _ r: UnsafePointer<Float>, count n: Int) {
        let lanes = 16
        let mp = UnsafeMutableRawPointer(m)
        let xp = UnsafeRawPointer(x)
        let rp = UnsafeRawPointer(r)
        var i = 0
        while i + lanes <= n {
            let off = i * 4
            let mv = mp.loadUnaligned(fromByteOffset: off, as: SIMD16<Float>.self)
            let xv = xp.loadUnaligned(fromByteOffset: off, as: SIMD16<Float>.self)
            let rv = rp.loadUnaligned(fromByteOffset: off, as: SIMD16<Float>.self)
            mp.storeBytes(of: mv + rv * (xv - mv), toByteOffset: off, as: SIMD16<Float>.self)
            i += lanes
        }
        while i < n {
            m[i] += r[i] * (x[i] - m[i])
            i += 1
        }
    }
}

/// The accumulator's planes in one zeroed block (`ZeroedMemory`). Bands of rows are
/// written from several threads, each pixel by one band only, which is what
/// makes `@unchecked Sendable` sound; `AverageAccumulator` copies it before
/// mutating a shared one.
final class AccumulatorStorage: @unchecked Sendable {
    private let base: UnsafeMutablePointer<Float>
    private let planes: Int
    private let planeSize: Int

    /// The zeroed memory behind `base`, mapped by several threads at once.
    private let memory: ZeroedMemory

    init(planes: Int, planeSize: Int) {
        self.planes = planes
        self.planeSize = planeSize
        // A failure to map is a failure to allocate, as for any array.
        guard let memory = try? ZeroedMemory(byteCount: max(1, planes * planeSize) * MemoryLayout<Float>.stride) else {
            fatalError("cannot allocate \(planes) accumulator planes of \(planeSize) samples")
        }
        self.memory = memory
        base = memory.base.bindMemory(to: Float.self, capacity: max(1, planes * planeSize))
    }

    /// The first sample of plane `index`.
    func plane(_ index: Int) -> UnsafeMutablePointer<Float> { base + index * planeSize }

    /// Whether it holds no planes (an emptied accumulator's).
    var isEmpty: Bool { planes == 0 || planeSize == 0 }

    /// An independent copy.
    func copy() -> AccumulatorStorage {
        let c = AccumulatorStorage(planes: planes, planeSize: planeSize)
        c.base.update(from: base, count: planes * planeSize)
        return c
    }
}
