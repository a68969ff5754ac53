public import Registration
import Dispatch
import Synchronization

extension FrameStore {
    /// Rows per strip: the unit of work handed to a thread.
    static let stripRows = 8

    /// Largest frame count reduced with the SIMD sorting network. Past it
    /// the median and sigma-clip with equal weights select the ranks they
    /// need by bisection (`LaneSelection`), whose cost per sample does not
    /// grow with the frame count; sigma-clip with unequal weights and mode
    /// take the scalar per-pixel path.
    static let networkLimit = 64

    /// Reduces the stored frames with `kernel`, per output pixel over the
    /// frames that cover it.
    ///
    /// - Parameters:
    ///   - weights: one weight per frame slot (≥ 0, finite); used by
    ///     sigma-clip and mode for their weighted means, ignored by median.
    ///   - threads: how many threads reduce row strips at once (≥ 1; values
    ///     below 1 count as 1). The output does not depend on it.
    /// - Returns: the stacked image (channels as stored; 0 where no frame
    ///   covers a pixel) and the number of covering frames per pixel.
    /// - Throws: `StackerError.invalidInput` for bad weights or kernel parameters.
    public func reduce(_ kernel: RobustKernel, weights: [Float], threads: Int) throws
        -> (image: Image, coverageCount: Plane) {
        try reduce(kernel, weights: weights, threads: threads, networkLimit: Self.networkLimit)
    }

    /// `reduce` without the coverage counts (the pipeline does not use
    /// them): no count plane is allocated (48 MB of fresh pages at 12 MP).
    /// With `rows`, only the strips holding those rows are reduced; the
    /// other rows of the image are left unset (a `--rows` shard keeps its band).
    func reduceImage(_ kernel: RobustKernel, weights: [Float], threads: Int, rows: Range<Int>? = nil) throws -> Image {
        try reduce(kernel, weights: weights, threads: threads, networkLimit: Self.networkLimit,
                   scalarPastNetwork: false, counts: false, rejectionMap: false, rows: rows).image
    }

    /// The strips of `stripRows` rows, of `height`, that hold `rows` (all when nil).
    static func strips(holding rows: Range<Int>?, height: Int, stripRows: Int) -> Range<Int> {
        let all = (height + stripRows - 1) / stripRows
        guard let rows else { return 0..<all }
        return min(all, max(0, rows.lowerBound) / stripRows)..<min(all, (rows.upperBound + stripRows - 1) / stripRows)
    }

    /// `reduce` with the SIMD-path limit as a parameter (tests force the
    /// paths past the network with `networkLimit: 0`, the scalar one for
    /// every kernel with `scalarPastNetwork`, and an 8-bit store's
    /// sigma-clip by bisection instead of level counts with
    /// `countsLevels: false`); with `counts: false` the count plane comes
    /// back empty (0 × 0).
    func reduce(_ kernel: RobustKernel, weights: [Float], threads: Int, networkLimit: Int,
                scalarPastNetwork: Bool = false, countsLevels: Bool = true,
                counts: Bool = true) throws -> (image: Image, coverageCount: Plane) {
        let r = try reduce(kernel, weights: weights, threads: threads, networkLimit: networkLimit,
                           scalarPastNetwork: scalarPastNetwork, countsLevels: countsLevels, counts: counts,
                           rejectionMap: false)
        return (r.image, r.coverageCount)
    }

    /// `reduce` with the rejection map: per pixel, the fraction of the
    /// covered samples (all channels together) that the kernel rejected
    /// below and above. Every pixel takes the scalar path, whose kernels
    /// report their counts (the same values as the other paths for the
    /// rejection family; sigma-clip's may differ from the SIMD paths' in
    /// the last bits).
    /// - Throws: `StackerError.invalidInput` for bad weights or kernel
    ///   parameters, or a kernel that rejects nothing (median, mode).
    func reduceWithRejectionMap(_ kernel: RobustKernel, weights: [Float], threads: Int) throws
        -> (image: Image, rejectedLow: Plane, rejectedHigh: Plane) {
        switch kernel {
        case .sigmaClip, .rejection: break
        case .median, .mode, .mean, .tukeyMean:
            throw StackerError.invalidInput(path: "", reason: "a rejection map needs a rejecting kernel (sigma-clip or the rejection family)")
        }
        let r = try reduce(kernel, weights: weights, threads: threads, networkLimit: Self.networkLimit,
                           scalarPastNetwork: true, counts: false, rejectionMap: true)
        let empty = Plane(width: 0, height: 0)
        return (r.image, r.map?.low ?? empty, r.map?.high ?? empty)
    }

    /// The reduction behind `reduce` and `reduceWithRejectionMap`; with
    /// `rejectionMap` every pixel takes the scalar path.
    private func reduce(_ kernel: RobustKernel, weights: [Float], threads: Int, networkLimit: Int,
                        scalarPastNetwork: Bool, countsLevels: Bool = true, counts: Bool, rejectionMap: Bool,
                        rows: Range<Int>? = nil) throws
        -> (image: Image, coverageCount: Plane, map: (low: Plane, high: Plane)?) {
        try Self.checkReduction(kernel, weights: weights, frameCount: frameCount)
        let w = width, h = height, c = channels
        let planeSize = w * h
        let network = rejectionMap ? nil : Self.network(for: kernel, frameCount: frameCount, limit: networkLimit)
        let strips = Self.strips(holding: rows, height: h, stripRows: Self.stripRows)
        let workers = max(1, min(threads, strips.count))
        // The output arrays are written in place (no zero fill, no copy): every
        // pixel of every plane is written exactly once by the strip threads.
        let mapPlanes = rejectionMap ? 2 : 0
        let countIndex = c + mapPlanes
        let arrays = [[Float]](uninitialized: countIndex + (counts ? 1 : 0), count: planeSize) { outputs in
            var built = StripJob(store: self, kernel: kernel, weights: weights, network: network,
                               outputs: Array(outputs.prefix(c)), counts: counts ? outputs[countIndex] : nil,
                               equalWeights: weights.allSatisfy { $0 == weights.first },
                               selectsPastNetwork: !scalarPastNetwork, countsLevels: countsLevels)
            if rejectionMap { built.rejectedFractions = (outputs[c], outputs[c + 1]) }
            let job = built
            // Threads take the next strip from a shared counter, so a thread
            // slowed by other load does not hold up the rest; each pixel is
            // computed the same way whichever thread takes it.
            let nextStrip = Atomic<Int>(strips.lowerBound)
            DispatchQueue.concurrentPerform(iterations: workers) { _ in
                let scratch = StripScratch(frames: job.store.frameCount, channels: job.store.channels,
                                           width: job.store.width)
                while true {
                    let strip = nextStrip.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard strip < strips.upperBound else { break }
                    let y0 = strip * Self.stripRows
                    let y1 = min(y0 + Self.stripRows, job.store.height)
                    job.reduceRows(y0..<y1, scratch)
                    job.store.dropResident(rows: y0..<y1)
                }
            }
        }
        let planes = arrays.prefix(c).map { Plane(width: w, height: h, pixels: $0) }
        let countPlane = counts ? Plane(width: w, height: h, pixels: arrays[countIndex]) : Plane(width: 0, height: 0)
        let map = rejectionMap ? (Plane(width: w, height: h, pixels: arrays[c]),
                                  Plane(width: w, height: h, pixels: arrays[c + 1])) : nil
        return (Image(width: w, height: h, planes: planes), countPlane, map)
    }

    /// Throws `StackerError.invalidInput` for kernel parameters or weights
    /// (one per frame slot, finite, ≥ 0) a reduction cannot use.
    static func checkReduction(_ kernel: RobustKernel, weights: [Float], frameCount: Int) throws {
        if let reason = kernel.invalidReason {
            throw StackerError.invalidInput(path: "", reason: reason)
        }
        guard weights.count == frameCount else {
            throw StackerError.invalidInput(
                path: "", reason: "\(weights.count) weights for \(frameCount) frames")
        }
        if let bad = weights.first(where: { !$0.isFinite || $0 < 0 }) {
            throw StackerError.invalidInput(path: "", reason: "frame weight \(bad) is not a finite number ≥ 0")
        }
    }

    /// The sorting network `kernel` reduces `frameCount` frames with: median
    /// and sigma-clip up to `limit` frames; nil for the scalar path.
    static func network(for kernel: RobustKernel, frameCount: Int, limit: Int) -> SortingNetwork? {
        switch kernel {
        case .median, .sigmaClip: return frameCount <= limit ? SortingNetwork(count: frameCount) : nil
        case .mode, .rejection, .mean, .tukeyMean: return nil
        }
    }
}

/// Per-thread working memory for the strip reducer, allocated once per
/// thread (never per pixel).
final class StripScratch {
    let frames: Int
    let channels: Int
    /// SIMD lanes: values, weights and the +∞ penalty of uncovered samples, per frame.
    let v: UnsafeMutablePointer<SIMD8<Float>>
    /// Integer lanes for the median (16 stored samples per frame), and each
    /// frame's coverage as an or-mask (0 where covered, all ones where not).
    let lanes: UnsafeMutablePointer<SIMD16<UInt16>>
    let orMask: UnsafeMutablePointer<SIMD16<UInt16>>
    let w: UnsafeMutablePointer<SIMD8<Float>>
    let penalty: UnsafeMutablePointer<SIMD8<Float>>
    /// Sigma-clip's deviations from the median, per frame.
    let deviations: UnsafeMutablePointer<SIMD8<Float>>
    /// Sigma-clip's integer deviations past the network, per frame.
    let integerDeviations: UnsafeMutablePointer<SIMD16<UInt16>>
    /// Sigma-clip's samples per level past the network in an 8-bit store:
    /// 16 pixels × `StripJob.countedLevels`, zero between groups.
    let levelCounts: UnsafeMutablePointer<UInt16>
    /// One pixel's samples (frames × channels) and weights.
    let values: UnsafeMutablePointer<Float>
    let weights: UnsafeMutablePointer<Float>
    /// One pixel's output (channels).
    let pixelOut: UnsafeMutablePointer<Float>
    /// A row of coverage counts, written and dropped when the caller wants none.
    let countRow: UnsafeMutablePointer<Float>
    let mode: ModeCluster.Scratch
    /// GESD's critical values for up to `frames` samples, built by the
    /// first pixel that needs them.
    var gesdTable: GESDClip.CriticalValues?
    /// Where `warm` leaves its result.
    var sink: UInt64 = 0

    init(frames: Int, channels: Int, width: Int) {
        self.frames = max(frames, 1)
        self.channels = max(channels, 1)
        v = .allocate(capacity: self.frames)
        lanes = .allocate(capacity: self.frames)
        orMask = .allocate(capacity: self.frames)
        w = .allocate(capacity: self.frames)
        penalty = .allocate(capacity: self.frames)
        deviations = .allocate(capacity: self.frames)
        integerDeviations = .allocate(capacity: self.frames)
        levelCounts = .allocate(capacity: 16 * StripJob.countedLevels)
        levelCounts.initialize(repeating: 0, count: 16 * StripJob.countedLevels)
        values = .allocate(capacity: self.frames * self.channels)
        weights = .allocate(capacity: self.frames)
        pixelOut = .allocate(capacity: self.channels)
        countRow = .allocate(capacity: max(width, 1))
        mode = ModeCluster.Scratch(capacity: self.frames, channels: self.channels)
    }

    deinit {
        v.deallocate(); w.deallocate(); penalty.deallocate(); deviations.deallocate(); integerDeviations.deallocate(); levelCounts.deallocate(); lanes.deallocate(); orMask.deallocate()
        values.deallocate(); weights.deallocate(); pixelOut.deallocate(); countRow.deallocate()
    }
}

/// One reduction: the store, the kernel and the output, shared read-only by
/// the strip threads; each output pixel is written by exactly one thread.
struct StripJob: @unchecked Sendable {
    let store: FrameStore
    let kernel: RobustKernel
    let weights: [Float]
    let network: SortingNetwork?
    /// `channels` output planes, each W·H.
    let outputs: [UnsafeMutablePointer<Float>]
    /// The coverage-count plane (W·H), or nil when the caller wants none.
    let counts: UnsafeMutablePointer<Float>?

    /// Maps in, with one `Platform.populate` per output plane, slice `k`
    /// of `slices` of each plane's `count` floats: fresh pages taken in one
    /// call each by every reducing thread at the start, rather than a fault
    /// per page as the strips write them. A page a strip writes first is
    /// faulted in as usual; the values are not touched.
    func populateOutputs(slice k: Int, of slices: Int, count: Int) {
        let bytes = count * MemoryLayout<Float>.stride
        let from = bytes * k / slices, to = bytes * (k + 1) / slices
        guard to > from else { return }
        for plane in outputs { Platform.populate(UnsafeMutableRawPointer(plane) + from, byteCount: to - from) }
    }

    /// Where row `y`'s coverage counts go: the count plane, or the
    /// thread's scratch row when there is none.
    @inline(__always)
    func countRow(_ y: Int, _ s: StripScratch) -> UnsafeMutablePointer<Float> {
        counts.map { $0 + y * store.width } ?? s.countRow
    }
    /// Whether all frame weights are equal (sigma-clip then sorts values only).
    let equalWeights: Bool
    /// Where the scalar path writes, per pixel, the fraction of the covered
    /// samples (over all channels) rejected low and high, if anywhere.
    var rejectedFractions: (low: UnsafeMutablePointer<Float>, high: UnsafeMutablePointer<Float>)? = nil
    /// Whether the median, and sigma-clip with equal weights, past the
    /// network select by bisection (else the scalar path, the tests'
    /// reference).
    var selectsPastNetwork = true
    /// Whether sigma-clip with equal weights past the network counts the
    /// levels of an 8-bit store (`reduceRowCounting`) rather than bisect;
    /// the same bits either way.
    var countsLevels = true

    /// The same reduction reading `strip` (a store of the same frames,
    /// width and channels), whose row 0 is output row `firstRow`. Its
    /// coverage counts, if any, are not kept.
    func reading(_ strip: FrameStore, outputFrom firstRow: Int) -> StripJob {
        StripJob(store: strip, kernel: kernel, weights: weights, network: network,
                 outputs: outputs.map { $0 + firstRow * strip.width }, counts: nil, equalWeights: equalWeights,
                 selectsPastNetwork: selectsPastNetwork, countsLevels: countsLevels)
    }

    /// Reduces rows `rows` of the store into the same rows of the output.
    func reduceRows(_ rows: Range<Int>, _ scratch: StripScratch) {
        switch store.depth {
        case .eight: for y in rows { reduceRow(y, scratch, as: UInt8.self) }
        case .sixteen: for y in rows { reduceRow(y, scratch, as: UInt16.self) }
        // Float samples are sorted as floats by the network (median and
        // sigma-clip), else taken one pixel at a time: they are not
        // integers to sort or select in integer lanes.
        case .float32:
            for y in rows {
                if let network { reduceRowNetwork(y, network, scratch, as: Float.self) } else {
                    reduceRowScalar(y, scratch, as: Float.self)
                }
            }
        }
    }

    /// Reduces row `y` into the output; `T` is the store's sample type.
    func reduceRow<T: StoredSample>(_ y: Int, _ scratch: StripScratch, as _: T.Type) {
        guard let network else {
            if selectsPastNetwork && store.frameCount <= Int(UInt16.max) {
                switch kernel {
                case .median:
                    return reduceRowSelecting(y, scratch, as: T.self)
                case .sigmaClip where equalWeights:
                    if countsLevels && T.self == UInt8.self { return reduceRowCounting(y, scratch) }
                    return reduceRowSelecting(y, scratch, as: T.self)
                case .sigmaClip, .mode, .rejection, .mean, .tukeyMean:
                    break
                }
            }
            return reduceRowScalar(y, scratch, as: T.self)
        }
        if case .median = kernel {
            reduceRowMedian(y, network, scratch, as: T.self)
        } else {
            reduceRowNetwork(y, network, scratch, as: T.self)
        }
    }

    /// Median: 16 neighbouring pixels sorted together as stored integers,
    /// widened to `UInt16` (no conversion to float before the sort), with
    /// uncovered samples set to 65535 so they sort last. A lane with k
    /// covered samples then holds them sorted in `0..<k` (a covered sample
    /// of 65535 ties with the uncovered ones, which changes no value),
    /// and its median is computed from the two middle ones exactly as
    /// `Median.inPlace` does, so every path gives the same bits.
    private func reduceRowMedian<T: StoredSample>(_ y: Int, _ net: SortingNetwork, _ s: StripScratch,
                                                  as _: T.Type) {
        if store.frameCount <= StoreKernels.medianFrames { return reduceRowMedianCovered(y, net, s, as: T.self) }
        forEachSixteen(y, s, as: T.self, warm: true) { count, lanes, out in
            medianOfGroup(net, s, count: count, lanes: lanes, out: out, as: T.self)
        }
    }

    /// `reduceRowMedian` of a store of at most `StoreKernels.medianFrames`
    /// frames. Where every frame covers a group of neighbouring pixels (most
    /// of the image) the group is sorted by a network unrolled for the frame
    /// count in `StoreKernels`, 32 pixels at a time as bytes (8-bit stores)
    /// or 16 as 16-bit samples: the same samples in the same order, so the
    /// same bits. Other groups take the 16-lane path.
    private func reduceRowMedianCovered<T: StoredSample>(_ y: Int, _ net: SortingNetwork, _ s: StripScratch,
                                                         as _: T.Type) {
        let wd = store.width, n = store.frameCount, c = store.channels
        let bytes = T.self == UInt8.self, group = bytes ? 32 : 16
        let rowSamples = store.samples(as: T.self) + y * n * c * wd
        let runs = store.spans + y * n
        let countOut = countRow(y, s)
        Self.warm(UnsafeRawPointer(rowSamples), bytes: n * c * wd * MemoryLayout<T>.stride, scratch: s)
        var x0 = 0
        while x0 < wd {
            var whole = x0 + group <= wd
            var f = 0
            while whole && f < n {
                whole = Int(runs[f].x) <= x0 && x0 + group <= Int(runs[f].y)
                f += 1
            }
            guard whole else {
                let lanes = min(16, wd - x0)
                sixteen(at: x0, lanes: lanes, rowSamples: rowSamples, runs: runs, countOut: countOut, y: y, s,
                        as: T.self) { count, lanes, out in
                    medianOfGroup(net, s, count: count, lanes: lanes, out: out, as: T.self)
                }
                x0 += lanes
                continue
            }
            (countOut + x0).update(repeating: Float(n), count: group)
            for ch in 0..<c {
                let base = UnsafeRawPointer(rowSamples + ch * wd + x0), out = outputs[ch] + y * wd + x0
                if bytes {
                    StoreKernels.medianOfThirtyTwo(base.assumingMemoryBound(to: UInt8.self), stride: c * wd, frames: n,
                                                   scale: T.scale, into: out)
                } else {
                    StoreKernels.medianOfSixteen(base.assumingMemoryBound(to: UInt16.self), stride: c * wd, frames: n,
                                                 scale: T.scale, into: out)
                }
            }
            x0 += group
        }
    }

    /// The median of one group of up to 16 pixels whose samples
    /// `forEachSixteen` put in `s.lanes`, into `out`.
    @inline(__always)
    private func medianOfGroup<T: StoredSample>(_ net: SortingNetwork, _ s: StripScratch, count: SIMD16<UInt16>,
                                                  lanes: Int, out: UnsafeMutablePointer<Float>, as _: T.Type) {
        let n = store.frameCount, scale = T.scale, v = s.lanes
        net.sort(v)
        if lanes == 16 && count == SIMD16(repeating: UInt16(truncatingIfNeeded: n)) {
            // Every frame covers all 16 pixels: the same median for each
            // lane, computed 16 at a time.
            let lo = SIMD16<Float>(v[(n - 1) / 2]), hi = SIMD16<Float>(v[n / 2])
            let median = 0.5 * (lo * scale + hi * scale)
            UnsafeMutableRawPointer(out).storeBytes(of: median, as: SIMD16<Float>.self)
            return
        }
        for l in 0..<lanes {
            let k = Int(count[l])
            out[l] = k == 0 ? 0 : 0.5 * (Float(v[(k - 1) / 2][l]) * scale + Float(v[k / 2][l]) * scale)
        }
    }

    /// Calls `body` for each group of 16 neighbouring pixels of row `y` and
    /// each channel, with the frames' samples of that group and channel in
    /// `s.lanes` (widened to `UInt16`, 65535 where a frame does not cover a
    /// pixel; the frames' coverage or-masks in `s.orMask`), the covered
    /// count per pixel, how many of the 16 lanes are in the row, and where
    /// the group's output goes. The coverage counts are written to the
    /// count row. `warm` first reads the row block once in order (`warm`).
    @inline(__always)
    func forEachSixteen<T: StoredSample>(
        _ y: Int, _ s: StripScratch, as _: T.Type, warm: Bool,
        _ body: (_ count: SIMD16<UInt16>, _ lanes: Int, _ out: UnsafeMutablePointer<Float>) -> Void
    ) {
        let wd = store.width, n = store.frameCount, c = store.channels
        let rowSamples = store.samples(as: T.self) + y * n * c * wd
        let runs = store.spans + y * n
        let countOut = countRow(y, s)
        if warm {
            Self.warm(UnsafeRawPointer(rowSamples), bytes: n * c * wd * MemoryLayout<T>.stride, scratch: s)
        }
        var x0 = 0
        while x0 < wd {
            sixteen(at: x0, lanes: min(16, wd - x0), rowSamples: rowSamples, runs: runs, countOut: countOut, y: y, s,
                    as: T.self, body)
            x0 += 16
        }
    }

    /// `forEachSixteen`'s work for the group of `lanes` (≤ 16) pixels at `x0`.
    @inline(__always)
    func sixteen<T: StoredSample>(
        at x0: Int, lanes: Int, rowSamples: UnsafePointer<T>, runs: UnsafePointer<SIMD2<Int32>>,
        countOut: UnsafeMutablePointer<Float>, y: Int, _ s: StripScratch, as _: T.Type,
        _ body: (_ count: SIMD16<UInt16>, _ lanes: Int, _ out: UnsafeMutablePointer<Float>) -> Void
    ) {
        let wd = store.width, n = store.frameCount, c = store.channels
        let v = s.lanes, uncovered = s.orMask
        let count = Self.coverage16(runs, frames: n, from: x0, uncovered: uncovered)
        for l in 0..<lanes { countOut[x0 + l] = Float(count[l]) }
        for ch in 0..<c {
            for f in 0..<n {
                v[f] = T.load16(rowSamples + (f * c + ch) * wd + x0, lanes: lanes) | uncovered[f]
            }
            body(count, lanes, outputs[ch] + y * wd + x0)
        }
    }

    /// Per lane, how many of the `n` frames' runs cover pixel `x0 + l`, and
    /// each frame's coverage of the 16 pixels as an or-mask in
    /// `uncovered[f]` (0 where covered, all ones where not).
    @inline(__always)
    static func coverage16(_ runs: UnsafePointer<SIMD2<Int32>>, frames n: Int, from x0: Int,
                           uncovered: UnsafeMutablePointer<SIMD16<UInt16>>) -> SIMD16<UInt16> {
        var count = SIMD16<UInt16>(repeating: 0)
        for f in 0..<n {
            let run = runs[f]
            let start = Int(run.x), end = Int(run.y)
            if start <= x0 && x0 + 16 <= end {
                count &+= 1
                uncovered[f] = SIMD16(repeating: 0)
            } else if end <= x0 || start >= x0 + 16 {
                uncovered[f] = SIMD16(repeating: .max)
            } else {
                // The run starts or ends inside these 16 pixels.
                var mask = SIMD16<UInt16>(repeating: .max)
                for l in 0..<16 where x0 + l >= start && x0 + l < end {
                    count[l] &+= 1
                    mask[l] = 0
                }
                uncovered[f] = mask
            }
        }
        return count
    }

    /// Sigma-clip: 8 neighbouring pixels sorted together by the network as
    /// floats (with their weights when those differ), then clipped together
    /// (`SigmaClip.clipSortedLanes`).
    private func reduceRowNetwork<T: StoreElement>(_ y: Int, _ net: SortingNetwork, _ s: StripScratch,
                                                   as _: T.Type) {
        let wd = store.width, n = store.frameCount, c = store.channels
        let rowSamples = store.samples(as: T.self) + y * n * c * wd
        let runs = store.spans + y * n
        let scale = T.scale
        let countOut = countRow(y, s)
        let lane = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
        var x0 = 0
        while x0 < wd {
            let lanes = min(8, wd - x0)
            var count = SIMD8<Float>(repeating: 0)
            var covered = SIMD8<Int32>(repeating: 0)
            let xs = lane + Float(x0)
            for f in 0..<n {
                let run = runs[f]
                let inside = (xs .>= Float(run.x)) .& (xs .< Float(run.y))
                count += SIMD8<Float>(repeating: 0).replacing(with: 1, where: inside)
                covered &+= SIMD8<Int32>(repeating: 0).replacing(with: 1, where: inside)
                s.penalty[f] = SIMD8<Float>(repeating: .infinity).replacing(with: 0, where: inside)
            }
            for l in 0..<lanes { countOut[x0 + l] = count[l] }
            for ch in 0..<c {
                let out = outputs[ch] + y * wd + x0
                for f in 0..<n {
                    s.v[f] = T.load8(rowSamples + (f * c + ch) * wd + x0, lanes: lanes) * scale + s.penalty[f]
                }
                switch kernel {
                case .sigmaClip(let kl, let kh, let iterations):
                    if equalWeights {
                        // Equal weights: the weights need not follow the sort.
                        net.sort(s.v)
                    } else {
                        for f in 0..<n { s.w[f] = SIMD8<Float>(repeating: weights[f]) }
                        net.sort(s.v, carrying: s.w)
                    }
                    let clipped = SigmaClip.clipSortedLanes(
                        s.v, weights: equalWeights ? nil : UnsafePointer(s.w), rows: n,
                        count: covered, kappaLow: kl, kappaHigh: kh,
                        maxIterations: iterations, network: net, deviations: s.deviations)
                    for l in 0..<lanes { out[l] = clipped[l] }
                case .median:
                    // Float stores only (integer ones take `reduceRowMedian`):
                    // `Median.inPlace`'s formula on the sorted lanes.
                    net.sort(s.v)
                    for l in 0..<lanes {
                        let k = Int(covered[l])
                        out[l] = k == 0 ? 0 : 0.5 * (s.v[(k - 1) / 2][l] + s.v[k / 2][l])
                    }
                case .mode, .rejection, .mean, .tukeyMean:
                    // Not reached: these take the scalar path.
                    for l in 0..<lanes { out[l] = 0 }
                }
            }
            x0 += 8
        }
    }

    /// Scalar path: each pixel's covered samples gathered and reduced alone.
    private func reduceRowScalar<T: StoreElement>(_ y: Int, _ s: StripScratch, as _: T.Type) {
        let wd = store.width, n = store.frameCount, c = store.channels
        let rowSamples = store.samples(as: T.self) + y * n * c * wd
        let runs = store.spans + y * n
        let scale = T.scale
        let countOut = countRow(y, s)
        if case .rejection(.gesd(_, let alpha)) = kernel, s.gesdTable == nil {
            s.gesdTable = GESDClip.CriticalValues(significance: Double(alpha), maxCount: n)
        }
        for x in 0..<wd {
            let x32 = Int32(x)
            let pixel = y * wd + x
            var k = 0
            switch kernel {
            case .mode(let tolerance):
                for f in 0..<n where x32 >= runs[f].x && x32 < runs[f].y {
                    for ch in 0..<c {
                        s.values[k * c + ch] = rowSamples[(f * c + ch) * wd + x].floatValue * scale
                    }
                    s.weights[k] = weights[f]
                    k += 1
                }
                _ = ModeCluster.reduce(samples: s.values, count: k, channels: c, weights: s.weights,
                                       tolerance: tolerance, output: s.pixelOut, scratch: s.mode)
                for ch in 0..<c { outputs[ch][pixel] = s.pixelOut[ch] }
            case .median, .sigmaClip, .rejection, .mean, .tukeyMean:
                var low = 0, high = 0
                for ch in 0..<c {
                    k = 0
                    for f in 0..<n where x32 >= runs[f].x && x32 < runs[f].y {
                        s.values[k] = rowSamples[(f * c + ch) * wd + x].floatValue * scale
                        s.weights[k] = weights[f]
                        k += 1
                    }
                    let values = UnsafeMutableBufferPointer(start: s.values, count: k)
                    let weights = UnsafeMutableBufferPointer(start: s.weights, count: k)
                    let value: Float
                    switch kernel {
                    case .sigmaClip(let kl, let kh, let iterations):
                        let r = SigmaClip.clip(values: values, weights: weights, kappaLow: kl, kappaHigh: kh,
                                               maxIterations: iterations)
                        value = r.value
                        low += r.rejectedLow; high += r.rejectedHigh
                    case .rejection(let algorithm):
                        let r = algorithm.reject(values: values, weights: weights, gesdTable: s.gesdTable)
                        value = r.value
                        low += r.rejectedLow; high += r.rejectedHigh
                    case .mean:
                        value = Self.weightedMean(values, weights)
                    case .tukeyMean(let c):
                        value = TukeyMean.reduce(values, weights: weights, c: c)
                    default:
                        value = Median.inPlace(values)
                    }
                    outputs[ch][pixel] = value
                }
                if let map = rejectedFractions {
                    let samples = Float(k * c)
                    map.low[pixel] = k == 0 ? 0 : Float(low) / samples
                    map.high[pixel] = k == 0 ? 0 : Float(high) / samples
                }
            }
            countOut[x] = Float(k)
        }
    }

    /// Σwx / Σw over `values` (the plain mean when the weights sum to 0; 0
    /// for no values), in doubles.
    static func weightedMean(_ values: UnsafeMutableBufferPointer<Float>,
                             _ weights: UnsafeMutableBufferPointer<Float>) -> Float {
        var sw = 0.0, swx = 0.0, sx = 0.0
        for i in values.indices {
            let w = Double(weights[i]), x = Double(values[i])
            sw += w; swx += w * x; sx += x
        }
        return values.isEmpty ? 0 : Float(sw > 0 ? swx / sw : sx / Double(values.count))
    }

    /// Reads `bytes` from `p` once in order, one load per cache line, so
    /// that a row block the reducer then reads as N·C interleaved streams
    /// (more than the hardware prefetcher follows) is already in cache.
    @inline(never)
    static func warm(_ p: UnsafeRawPointer, bytes: Int, scratch: StripScratch) {
        var acc: UInt64 = 0
        var i = 0
        while i + 8 <= bytes {
            acc |= p.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 64
        }
        // Kept, so the loads are not optimised away.
        scratch.sink = acc
    }

    /// Eight consecutive elements from `p` (the first `lanes` of them; the
    /// rest 0), without reading past `p + lanes`.
    @inline(__always)
    static func load8<T: SIMDScalar>(_ p: UnsafePointer<T>, _ lanes: Int) -> SIMD8<T> {
        if lanes == 8 { return UnsafeRawPointer(p).loadUnaligned(as: SIMD8<T>.self) }
        var v = SIMD8<T>()
        for l in 0..<lanes { v[l] = p[l] }
        return v
    }

    /// Sixteen consecutive elements from `p`, as `load8`.
    @inline(__always)
    static func load16<T: FixedWidthInteger & SIMDScalar>(_ p: UnsafePointer<T>, _ lanes: Int) -> SIMD16<T> {
        if lanes == 16 { return UnsafeRawPointer(p).loadUnaligned(as: SIMD16<T>.self) }
        var v = SIMD16<T>(repeating: 0)
        for l in 0..<lanes { v[l] = p[l] }
        return v
    }
}
