import Registration

/// The kernel stage of the pipeline: folds frames into the streaming average,
/// or keeps them in a frame store and reduces it with a robust kernel.
struct Combiner {
    private enum State {
        case average(AverageAccumulator)
        case robust(FrameStore, RobustKernel)
        /// Held only while a fold runs, so the accumulator's buffers are not shared (no copy-on-write).
        case folding
    }
    private var state: State
    private let width: Int, height: Int

    /// A combiner for `options.mode` over `frameCount` frames of the given
    /// size; robust modes keep `depth` bits per sample in their frame store.
    init(options: StackOptions, width: Int, height: Int, channels: Int, frameCount: Int,
         depth: FrameStore.SampleDepth = .sixteen) throws {
        self.width = width
        self.height = height
        let kernel: RobustKernel
        switch options.mode {
        case .average:
            state = .average(AverageAccumulator(width: width, height: height, channels: channels))
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
        case .robust:
            return AverageAccumulator.FoldTimes()
        }
    }

    /// The combined image; `weights` has one entry per frame (0 for unused).
    func finish(weights: [Float], threads: Int) throws -> Image {
        switch state {
        case .average(let acc):
            return Image(width: width, height: height, planes: acc.mean)
        case .robust(let store, let kernel):
            return try store.reduce(kernel, weights: weights, threads: threads).image
        case .folding:
            preconditionFailure("Combiner.finish called during a fold")
        }
    }
}
