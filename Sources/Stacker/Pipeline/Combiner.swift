import Registration

/// The kernel stage of the pipeline: folds frames into the streaming average,
/// or keeps them in a frame store and reduces it with a robust kernel.
struct Combiner {
    private enum State {
        case average(AverageAccumulator)
        /// The average of Y on the full grid and of Cb, Cr on the grid
        /// shrunk by `factor`, turned into RGB at the end.
        case averageYCbCr(luma: AverageAccumulator, chroma: AverageAccumulator, factor: Int)
        case robust(FrameStore, RobustKernel)
        /// Held only while a fold runs, so the accumulator's buffers are not shared (no copy-on-write).
        case folding
    }
    private var state: State
    private let width: Int, height: Int

    /// A combiner for `options.mode` over `frameCount` frames of the given
    /// size; robust modes keep `depth` bits per sample in their frame store.
    /// With `ycbcrFactor` the average folds Y, Cb, Cr (chroma shrunk by
    /// that factor) instead of RGB, and frames come through
    /// `add(warping:chroma:…)`.
    init(options: StackOptions, width: Int, height: Int, channels: Int, frameCount: Int,
         depth: FrameStore.SampleDepth = .sixteen, ycbcrFactor: Int? = nil) throws {
        self.width = width
        self.height = height
        let kernel: RobustKernel
        switch options.mode {
        case .average:
            if let f = ycbcrFactor {
                state = .averageYCbCr(luma: AverageAccumulator(width: width, height: height, channels: 1),
                                      chroma: AverageAccumulator(width: width / f, height: height / f, channels: 2),
                                      factor: f)
            } else {
                state = .average(AverageAccumulator(width: width, height: height, channels: channels))
            }
            return
        case .median: kernel = .median
        case .mode: kernel = .mode(tolerance: options.modeTolerance)
        case .sigmaClip:
            kernel = .sigmaClip(kappaLow: options.kappaLow, kappaHigh: options.kappaHigh,
                                maxIterations: options.clipIterations)
        }
        let store = try FrameStore(width: width, height: height, channels: channels, frameCount: frameCount,
                                   depth: depth, memoryLimit: options.memoryLimit,
                                   temporaryDirectory: options.temporaryDirectory)
        state = .robust(store, kernel)
    }

    /// The frame store of a robust mode (nil for average). It is safe to
    /// store different frames into it from several threads; frames never
    /// stored count as covering nothing.
    var frameStore: FrameStore? {
        if case .robust(let store, _) = state { return store }
        return nil
    }

    /// Warps and folds a frame into the average (frames arrive in input
    /// order), on `threads` threads. Robust modes take their frames through
    /// `frameStore` and ignore this.
    mutating func add(warping frame: RowWarper, weight: Float, gains: [(gain: Float, offset: Float)],
                      threads: Int) -> AverageAccumulator.FoldTimes {
        switch state {
        case .average(var acc):
            state = .folding
            let times = acc.add(warping: frame, weight: weight, gains: gains, threads: threads)
            state = .average(acc)
            return times
        case .folding:
            preconditionFailure("Combiner.add re-entered during a fold")
        case .robust, .averageYCbCr:
            return AverageAccumulator.FoldTimes()
        }
    }

    /// The chroma factor when the average folds Y, Cb, Cr; else nil.
    var ycbcrFactor: Int? {
        if case .averageYCbCr(_, _, let factor) = state { return factor }
        return nil
    }

    /// Warps and folds a frame's Y (`luma`) and Cb, Cr (`chroma`) into a
    /// Y, Cb, Cr average (see `ycbcrFactor`); other kernels ignore it.
    mutating func add(warping luma: RowWarper, chroma: RowWarper, weight: Float, threads: Int)
        -> AverageAccumulator.FoldTimes {
        guard case .averageYCbCr(var y, var c, let factor) = state else { return AverageAccumulator.FoldTimes() }
        state = .folding
        var times = y.add(warping: luma, weight: weight, threads: threads)
        let chromaTimes = c.add(warping: chroma, weight: weight, threads: threads)
        times.warp += chromaTimes.warp
        times.fold += chromaTimes.fold
        state = .averageYCbCr(luma: y, chroma: c, factor: factor)
        return times
    }

    /// The combined image; `weights` has one entry per frame (0 for unused).
    func finish(weights: [Float], threads: Int) throws -> Image {
        switch state {
        case .average(let acc):
            return Image(width: width, height: height, planes: acc.mean)
        case .averageYCbCr(let luma, let chroma, let factor):
            let c = chroma.mean
            return YCbCr.rgb(luma: luma.mean[0], cb: c[0], cr: c[1], factor: factor, threads: threads)
        case .robust(let store, let kernel):
            return try store.reduce(kernel, weights: weights, threads: threads).image
        case .folding:
            preconditionFailure("Combiner.finish called during a fold")
        }
    }
}
