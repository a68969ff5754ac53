/// The decisions of one run, made from the options and the reference frame
/// before any other frame is read: the form frames are decoded in, the
/// colour space the kernel works in, the frame store's depth and layout,
/// and what is measured per frame. A pure value: everything the pipeline
/// chooses is here, and can be checked without files.
struct StackPlan: Sendable, Equatable {
    /// What the run knows of its reference frame once decoded.
    struct Reference: Sendable, Equatable {
        var width: Int
        var height: Int
        var channels: Int
        /// Bits per sample in the file (see `DecodedImage.bitDepth`).
        var bitDepth: Int
        /// The chroma factor when the reference came as Y, Cb, Cr; else nil.
        var ycbcrFactor: Int?
    }

    /// One frame store of a robust kernel.
    struct StoreLayout: Sendable, Equatable {
        var width: Int
        var height: Int
        var channels: Int
        var depth: FrameStore.SampleDepth
        /// Frames kept as decoded and warped as they are reduced
        /// (`DeferredWarpStore`) rather than warped as they are stored.
        var deferred: Bool
        /// Bytes the store may hold in memory before it spills to disk.
        var memoryLimit: Int
        /// The whole process's resident bytes within which a deferred store
        /// holds frames: `--memory-limit` less the output's float planes and
        /// one frame per worker (see `DeferredWarpStore`).
        var residentLimit: Int? = nil
    }

    /// How the frames are combined.
    enum Combination: Sendable, Equatable {
        /// The streaming average; over Y, Cb, Cr (chroma shrunk by the
        /// factor) when `ycbcrFactor` is set, else over the frame's channels.
        case average(ycbcrFactor: Int?)
        /// A robust kernel over one store (RGB or grey), or over Y and Cb, Cr
        /// (`chroma`, on the grid shrunk by `ycbcrFactor`).
        case robust(RobustKernel, main: StoreLayout, chroma: StoreLayout?, ycbcrFactor: Int?)
    }

    /// The reference's grid and channel count, which every frame must match.
    var reference: Reference
    /// The form every other frame is decoded in.
    var form: DecodedFrame.Form
    /// How the frames are combined, and in which stores.
    var combination: Combination
    /// Whether each frame's background and noise are measured for the
    /// report (astro runs: calibration, normalisation or star alignment).
    var measuresBackground: Bool
    /// Whether frames are weighted by their inverse noise variance.
    var weightsByNoise: Bool
    /// Whether the reduce also gives the rejection map.
    var makesRejectionMap: Bool

    /// The form the reference is decoded in, which the options alone decide.
    /// JPEG frames stay 8-bit until the warp unless calibration or
    /// normalisation works on their samples first; the average, median and
    /// sigma-clip take them as the file's own Y, Cb, Cr planes (the robust
    /// kernels only as 4:2:0: at 4:4:4 their 16-bit chroma store would cost
    /// more than RGB); the mode clusters RGB colours.
    static func referenceForm(_ options: StackOptions) -> DecodedFrame.Form {
        guard keepsBytes(options) else { return .floats }
        // A rejection map is made per pixel of the RGB grid.
        guard options.stackInYCbCr, !options.makesRejectionMap else { return .bytes }
        if options.rejection != nil { return .ycbcr(factor: 2) }
        switch options.mode {
        case .mode: return .bytes
        // Under --keep the average is taken from a store, as the robust kernels are.
        case .average: return .ycbcr(factor: options.keep == nil && !options.robustAverage ? nil : 2)
        case .median, .sigmaClip: return .ycbcr(factor: 2)
        }
    }

    /// The plan for frames stacked with `options` onto `reference`. It does
    /// not depend on how many frames there are: a store past the memory
    /// limit spills to temporary files whatever the count.
    init(options: StackOptions, reference: Reference) {
        self.reference = reference
        let calibrated = !options.calibration.isEmpty
        let keepBytes = Self.keepsBytes(options)
        form = reference.ycbcrFactor.map { .ycbcr(factor: $0) } ?? (keepBytes ? .bytes : .floats)
        measuresBackground = calibrated || options.normalization != .none || options.alignment.usesStars
        weightsByNoise = options.weighting == .auto
        // 8-bit frames keep 8 bits per sample in the store (half the memory;
        // RobustStackingTests bounds the cost against the truth), 16-bit
        // files 16. Float files and calibrated frames keep floats: their
        // values may lie outside 0…1 (a dark-subtracted sky below 0, a
        // star above 1), and an integer store would clip them.
        let depth = options.storeDepth ?? Self.storeDepth(bitDepth: reference.bitDepth, calibrated: calibrated,
                                                          outputBitDepth: options.outputBitDepth ?? 8)
        // 8-bit frames can be warped as the kernel reduces them, whatever
        // their transforms (a warper reads their bytes): no warped copy of
        // the burst is stored. A rejection map is made by the frame store's
        // reduce (not deferred).
        let deferWarps = keepBytes && !options.makesRejectionMap
        makesRejectionMap = options.makesRejectionMap
        combination = Self.combination(options: options, reference: reference, depth: depth,
                                       deferWarps: deferWarps)
    }

    /// The store depth for a reference of `bitDepth` bits per sample: 8 for
    /// uncalibrated 8-bit files written at 8 bits, floats for float files
    /// (more than 16 bits) and calibrated frames, else 16.
    static func storeDepth(bitDepth: Int, calibrated: Bool, outputBitDepth: Int = 8) -> FrameStore.SampleDepth {
        if calibrated || bitDepth > 16 { return .float32 }
        return bitDepth <= 8 && outputBitDepth <= 8 ? .eight : .sixteen
    }

    /// The kernel for `options.rejection` or `options.mode`; nil for the
    /// streaming average (the average under `--keep` is a store's `.mean`).
    static func robustKernel(_ options: StackOptions) -> RobustKernel? {
        switch options.rejection {
        case .sigma(let low, let high, let iterations):
            // Today's sigma-clip kernel, so `--reject sigma` gives its bytes.
            return .sigmaClip(kappaLow: low, kappaHigh: high, maxIterations: iterations)
        case let algorithm?:
            return .rejection(algorithm)
        case nil:
            break
        }
        switch options.mode {
        // Frames dropped by --keep must leave after they are stored: a store's mean.
        case .average:
            if options.robustAverage { return .tukeyMean(c: TukeyMean.defaultC) }
            return options.keep == nil ? nil : .mean
        case .median: return .median
        case .mode: return .mode(tolerance: options.modeTolerance)
        case .sigmaClip:
            return .sigmaClip(kappaLow: options.kappaLow, kappaHigh: options.kappaHigh,
                              maxIterations: options.clipIterations)
        }
    }

    /// Whether frames may stay 8-bit until the warp: nothing works on their
    /// samples before it.
    private static func keepsBytes(_ options: StackOptions) -> Bool {
        options.calibration.isEmpty && options.normalization == .none
    }

    /// The combination and its stores. Deferred warps are taken whenever
    /// frames stay 8-bit, whatever the burst's size: `DeferredWarpStore`
    /// keeps frames as bytes up to the memory limit and spills only the
    /// rest (warped, one file each), so less goes to disk than when every
    /// frame of a store past the limit is spilled (docs/performance.md,
    /// issue 31). With Y, Cb, Cr the limit is shared between the two stores
    /// in proportion to their bytes.
    private static func combination(options: StackOptions, reference r: Reference, depth: FrameStore.SampleDepth,
                                    deferWarps: Bool) -> Combination {
        guard let kernel = robustKernel(options) else { return .average(ycbcrFactor: r.ycbcrFactor) }
        let limit = options.memoryLimit
        // What the process holds beside the stores' frames when it peaks:
        // the output's float planes, allocated for the reduce, and one more
        // frame per worker (workers storing at once read the same resident
        // figure, so each may take the last room).
        let outputBytes = r.width * r.height * r.channels * 4
        let residentLimit = limit - outputBytes - max(1, options.threads) * r.width * r.height * r.channels * depth.bytes
        guard let f = r.ycbcrFactor, kernel != .mode(tolerance: options.modeTolerance) else {
            let deferred = deferWarps
            return .robust(kernel, main: StoreLayout(width: r.width, height: r.height, channels: r.channels, depth: depth,
                                                     deferred: deferred, memoryLimit: limit, residentLimit: residentLimit),
                           chroma: nil, ycbcrFactor: nil)
        }
        // Chroma keeps 16 bits: RGB takes up to 1.772 × its rounding error
        // (B = Y + 1.772 Cb′), which an 8-bit chroma store would show.
        let chromaDepth = FrameStore.SampleDepth.sixteen
        let deferred = deferWarps
        let lumaBytes = Double(f * f * (deferred ? 1 : depth.bytes))
        let chromaBytes = Double(2 * (deferred ? 1 : chromaDepth.bytes))
        let lumaLimit = Int(Double(limit) * lumaBytes / (lumaBytes + chromaBytes))
        return .robust(kernel,
                       main: StoreLayout(width: r.width, height: r.height, channels: 1, depth: depth,
                                         deferred: deferred, memoryLimit: lumaLimit, residentLimit: residentLimit),
                       chroma: StoreLayout(width: r.width / f, height: r.height / f, channels: 2, depth: chromaDepth,
                                           deferred: deferred, memoryLimit: limit - lumaLimit, residentLimit: residentLimit),
                       ycbcrFactor: f)
    }
}
