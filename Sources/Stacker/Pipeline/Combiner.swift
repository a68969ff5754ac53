import Registration

/// The kernel stage of the pipeline: folds frames into the streaming average,
/// or keeps them in a frame store and reduces it with a robust kernel.
struct Combiner {
    private enum State {
        case average(AverageAccumulator)
        /// The average of Y on the full grid and of Cb, Cr on the grid
        /// shrunk by `factor`, turned into RGB at the end.
        case averageYCbCr(luma: AverageAccumulator, chroma: AverageAccumulator, factor: Int)
        case robust(any RobustFrameStore, RobustKernel)
        /// A robust kernel over Y on the full grid and over Cb, Cr on the
        /// grid shrunk by `factor`, turned into RGB at the end.
        case robustYCbCr(luma: any RobustFrameStore, chroma: any RobustFrameStore, RobustKernel, factor: Int)
        /// Registration only (`register`): frames are neither folded nor
        /// kept, so no accumulator or store is allocated.
        case nothing
        /// Held only while a fold runs, so the accumulator's buffers are not shared (no copy-on-write).
        case folding
    }
    private var state: State
    private let width: Int, height: Int
    /// Whether `finish` also gives the rejection map (RGB or grey stores only).
    private let makesRejectionMap: Bool

    /// A combiner for `frameCount` frames as `plan` lays it out; frame
    /// stores spill to `temporaryDirectory`. The average's frames come
    /// through `add(_:threads:)`, a robust kernel's through `frameStores`.
    /// With `combines` false (registration only) it allocates nothing,
    /// folds nothing and cannot be finished.
    init(plan: StackPlan.Combination, width: Int, height: Int, channels: Int, frameCount: Int,
         temporaryDirectory: FilePath, makesRejectionMap: Bool = false, combines: Bool = true) throws {
        self.width = width
        self.height = height
        self.makesRejectionMap = makesRejectionMap
        guard combines else {
            state = .nothing
            return
        }
        func store(_ layout: StackPlan.StoreLayout) throws -> any RobustFrameStore {
            try Self.robustStore(deferred: layout.deferred, width: layout.width, height: layout.height,
                                 channels: layout.channels, frameCount: frameCount, depth: layout.depth,
                                 memoryLimit: layout.memoryLimit, residentLimit: layout.residentLimit,
                                 temporaryDirectory: temporaryDirectory)
        }
        switch plan {
        case .average(let factor?):
            state = .averageYCbCr(luma: AverageAccumulator(width: width, height: height, channels: 1),
                                  chroma: AverageAccumulator(width: width / factor, height: height / factor, channels: 2),
                                  factor: factor)
        case .average(nil):
            state = .average(AverageAccumulator(width: width, height: height, channels: channels))
        case .robust(let kernel, let main, let chroma?, let factor?):
            state = .robustYCbCr(luma: try store(main), chroma: try store(chroma), kernel, factor: factor)
        case .robust(let kernel, let main, _, _):
            state = .robust(try store(main), kernel)
        }
    }

    /// A `DeferredWarpStore` when `deferred`, else a `FrameStore`.
    private static func robustStore(deferred: Bool, width: Int, height: Int, channels: Int, frameCount: Int,
                                    depth: FrameStore.SampleDepth, memoryLimit: Int, residentLimit: Int?,
                                    temporaryDirectory: FilePath) throws -> any RobustFrameStore {
        if deferred {
            return try DeferredWarpStore(width: width, height: height, channels: channels, frameCount: frameCount,
                                         depth: depth, memoryLimit: memoryLimit, residentLimit: residentLimit,
                                         temporaryDirectory: temporaryDirectory)
        }
        return try FrameStore(width: width, height: height, channels: channels, frameCount: frameCount,
                              depth: depth, memoryLimit: memoryLimit, temporaryDirectory: temporaryDirectory)
    }

    /// The frame stores of a robust kernel (nil for average): one for RGB,
    /// or Y and Cb, Cr (`chroma`) when the kernel works on Y, Cb, Cr. It is
    /// safe to store different frames into them from several threads;
    /// frames never stored count as covering nothing.
    var frameStores: (main: any RobustFrameStore, chroma: (any RobustFrameStore)?)? {
        switch state {
        case .robust(let store, _): return (store, nil)
        case .robustYCbCr(let luma, let chroma, _, _): return (luma, chroma)
        default: return nil
        }
    }

    /// Leaves frame `index` out of the combination, when it is held in a
    /// frame store (robust kernels, and the average under `--keep`).
    /// - Precondition: not a streaming average, which cannot take a frame back.
    func drop(frame index: Int) {
        switch state {
        case .robust(let store, _): store.drop(frame: index)
        case .robustYCbCr(let luma, let chroma, _, _):
            luma.drop(frame: index)
            chroma.drop(frame: index)
        case .average, .averageYCbCr, .nothing, .folding:
            preconditionFailure("Combiner.drop: a streaming average cannot leave a frame out")
        }
    }

    /// One frame for the average's fold: the frame (RGB, or Y), its Cb, Cr
    /// when the average works on Y, Cb, Cr, its weight and its gains.
    struct FoldFrame {
        var frame: RowWarper
        var chroma: RowWarper?
        var weight: Float
        var gains: [(gain: Float, offset: Float)]
        /// Cb, Cr gains when the average works on Y, Cb, Cr.
        var chromaGains: [(gain: Float, offset: Float)] = []
    }

    /// How many frames the average folds in one pass over its accumulator
    /// (`add(_:threads:)`); the result does not depend on it.
    static let foldBatch = 3

    /// Warps and folds `frames` (in input order) into the average, on
    /// `threads` threads, in one pass over the accumulator (the same bits as
    /// one frame at a time). Robust modes take their frames through
    /// `frameStores` and ignore this.
    mutating func add(_ frames: [FoldFrame], threads: Int) -> AverageAccumulator.FoldTimes {
        switch state {
        case .average(var acc):
            state = .folding
            let times = acc.add(warping: frames.map { ($0.frame, $0.weight, $0.gains) }, threads: threads)
            state = .average(acc)
            return times
        case .averageYCbCr(var y, var c, let factor):
            state = .folding
            var times = y.add(warping: frames.map { ($0.frame, $0.weight, $0.gains) }, threads: threads)
            let chroma = c.add(warping: frames.compactMap { f in f.chroma.map { ($0, f.weight, f.chromaGains) } },
                               threads: threads)
            times.warp += chroma.warp
            times.fold += chroma.fold
            state = .averageYCbCr(luma: y, chroma: c, factor: factor)
            return times
        case .folding:
            preconditionFailure("Combiner.add re-entered during a fold")
        case .robust, .robustYCbCr, .nothing:
            return AverageAccumulator.FoldTimes()
        }
    }

    /// The average's unnormalised sums: Σw·x per channel (the running
    /// mean times the weight sum, so within float rounding of the sum) and
    /// Σw per pixel; the accumulator is emptied. nil for a robust kernel or
    /// an average in Y, Cb, Cr, which keep no such sums on the output grid.
    mutating func partialSums() -> (sums: [Plane], weight: Plane)? {
        guard case .average(var acc) = state else { return nil }
        state = .folding
        let weight = acc.weightSum
        let sums = acc.mean.map { mean in
            Plane(width: width, height: height, pixels: zip(mean.pixels, weight.pixels).map { $0 * $1 })
        }
        acc.removeAll()
        return (sums, weight)
    }

    /// The combined image; `weights` has one entry per frame (0 for unused).
    /// The combiner is emptied as it goes: each accumulator or frame store
    /// gives its memory back once read, so the output's buffers reuse it.
    /// `warpShare` is the part of the work spent warping (deferred warps).
    /// With `makesRejectionMap` the map comes too (nil otherwise).
    /// With `rows`, a robust kernel reduces only what those output rows
    /// need (the rest of the image is left unset); the average ignores it.
    mutating func finish(weights: [Float], threads: Int, rows: Range<Int>? = nil) throws
        -> (image: Image, warpShare: Double, rejectionMap: RejectionMap?) {
        if makesRejectionMap, case .robust(let store as FrameStore, let kernel) = state {
            state = .folding
            defer { store.removeAll() }
            let r = try store.reduceWithRejectionMap(kernel, weights: weights, threads: threads)
            return (r.image, 0, RejectionMap(low: r.rejectedLow, high: r.rejectedHigh))
        }
        let (image, warpShare) = try finishImage(weights: weights, threads: threads, rows: rows)
        return (image, warpShare, nil)
    }

    /// `finish` without a rejection map.
    private mutating func finishImage(weights: [Float], threads: Int, rows: Range<Int>?) throws -> (image: Image, warpShare: Double) {
        // Each case empties `state` first, so its bindings hold the only
        // references and emptying them frees the memory.
        switch state {
        case .average(var acc):
            state = .folding
            let mean = acc.mean
            acc.removeAll()
            return (Image(width: width, height: height, planes: mean), 0)
        case .averageYCbCr(var luma, var chroma, let factor):
            state = .folding
            let c = chroma.mean
            chroma.removeAll()
            var y = luma.mean      // moved out below, so `rgb` can reuse its buffer
            luma.removeAll()
            return (YCbCr.rgb(luma: y.removeFirst(), cb: c[0], cr: c[1], factor: factor, threads: threads), 0)
        case .robust(let store, let kernel):
            state = .folding
            defer { store.removeAll() }
            return try store.reduceTimed(kernel, weights: weights, threads: threads, rows: rows)
        case .robustYCbCr(let luma, let chroma, let kernel, let factor):
            state = .folding
            // Y is moved out of its image, so `rgb` can reuse its buffer.
            let start = ContinuousClock.now
            let (yImage, yShare) = try luma.reduceTimed(kernel, weights: weights, threads: threads, rows: rows)
            var y = yImage.planes
            luma.removeAll()
            let ySeconds = seconds(since: start)
            // Chroma upsampling (Lanczos-3) reads 3 chroma rows either side.
            let chromaRows = rows.map { ($0.lowerBound / factor - 4)..<($0.upperBound / factor + 5) }
            let (c, cShare) = try chroma.reduceTimed(kernel, weights: weights, threads: threads, rows: chromaRows)
            chroma.removeAll()
            let cSeconds = seconds(since: start) - ySeconds
            let rgb = YCbCr.rgb(luma: y.removeFirst(), cb: c.planes[0], cr: c.planes[1], factor: factor, threads: threads)
            let total = seconds(since: start)
            return (rgb, total > 0 ? (ySeconds * yShare + cSeconds * cShare) / total : 0)
        case .nothing:
            preconditionFailure("Combiner.finish: a registration-only combiner has nothing to finish")
        case .folding:
            preconditionFailure("Combiner.finish called during a fold or twice")
        }
    }
}

/// Where a robust kernel keeps its frames until it reduces them: a
/// `FrameStore` (warped as they come) or a `DeferredWarpStore` (warped as
/// they are reduced). Both reduce to the same bits.
protocol RobustFrameStore: AnyObject, Sendable {
    /// Keeps frame `index`, warped by `frame`, with per-channel `gains`.
    func store(frame index: Int, warping frame: RowWarper, gains: [(gain: Float, offset: Float)]) throws
    /// The stacked image, reduced with `kernel` on `threads` threads, and
    /// the part of that work spent warping (0…1).
    /// With `rows`, only the strips holding those rows are reduced.
    func reduceTimed(_ kernel: RobustKernel, weights: [Float], threads: Int, rows: Range<Int>?) throws
        -> (image: Image, warpShare: Double)
    /// Drops every frame and gives the memory back.
    func removeAll()
    /// Drops frame `index`: it covers no pixel from now on.
    func drop(frame index: Int)
}

extension FrameStore: RobustFrameStore {
    /// `reduceImage`; its frames were warped as they were stored.
    func reduceTimed(_ kernel: RobustKernel, weights: [Float], threads: Int, rows: Range<Int>?) throws
        -> (image: Image, warpShare: Double) {
        (try reduceImage(kernel, weights: weights, threads: threads, rows: rows), 0)
    }
}

extension DeferredWarpStore: RobustFrameStore {}
