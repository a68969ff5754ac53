import Registration
import Synchronization

/// The stacking pipeline: decode → register → warp → combine, as in DESIGN.md.
///
/// Frames are decoded, registered and warped concurrently (at most
/// `options.threads` at a time) and folded in input order, so the output does
/// not depend on the thread count. The average path streams: it holds the
/// accumulators plus the frames in flight, never the whole burst.
public enum StackPipeline {
    /// Stacks the frames at `paths` onto the grid of the reference frame.
    /// - Parameters:
    ///   - paths: input files (JPEG, PNG, TIFF or FITS), at least two;
    ///     `String`s or `FilePath`s. Reports, warnings, progress and errors
    ///     name them by `FilePath.description`.
    ///   - options: mode, alignment, reference, threads, limits.
    ///   - progress: called (from any thread) as frames finish.
    /// - Returns: the stacked image and a record per frame.
    /// - Throws: `StackerError` naming the offending file.
    public static func run(paths: [some FilePathConvertible], options: StackOptions,
                           progress: @Sendable (StackProgress) -> Void = { _ in }) throws -> StackResult {
        try run(files: paths.map(\.filePath), options: options, progress: progress)
    }

    /// `run(paths:options:progress:)` on exact file names.
    private static func run(files paths: [FilePath], options requested: StackOptions,
                            progress: @Sendable (StackProgress) -> Void) throws -> StackResult {
        let start = ContinuousClock.now
        var chosen = requested
        guard paths.count >= 2 else {
            throw StackerError.invalidInput(path: paths.first?.description ?? "",
                                            reason: paths.isEmpty ? "no frames given" : "need at least two frames to stack, got one")
        }
        guard chosen.referenceIndex >= 0 && chosen.referenceIndex < paths.count else {
            throw StackerError.invalidInput(path: "", reason: "reference index \(chosen.referenceIndex) is out of range 0…\(paths.count - 1)")
        }
        guard chosen.starDetectionSigma > 0 && chosen.starDetectionSigma.isFinite else {
            throw StackerError.invalidInput(path: "", reason: "the star detection threshold must be a positive number of σ, not \(chosen.starDetectionSigma)")
        }
        if let given = chosen.givenTransforms, given.count != paths.count {
            throw StackerError.invalidInput(path: "", reason: "\(given.count) transforms given for \(paths.count) frames")
        }
        let threads = max(1, chosen.threads)
        let timings = Mutex(StageTimings())
        var sharpness: [Double?] = []
        if chosen.automaticReference && paths.count >= 2 {
            let (choice, seconds) = try measure { try ReferenceSelection.sharpest(paths: paths, options: chosen) }
            timings.withLock { $0.decode += seconds }
            chosen.referenceIndex = choice.index
            sharpness = choice.sharpness
        }
        let options = chosen
        // JPEG frames stay 8-bit until the warp unless calibration or
        // normalisation works on their samples first; the average, median
        // and sigma-clip take them as the file's own Y, Cb, Cr planes when
        // the reference has them (the mode clusters RGB colours).
        let keepBytes = options.calibration.isEmpty && options.normalization == .none
        // The robust kernels take 4:2:0 only: with 4:4:4 the 16-bit chroma
        // of their store (see Combiner) would cost more memory than RGB.
        let referenceForm: DecodedFrame.Form
        switch options.mode {
        case _ where !keepBytes: referenceForm = .floats
        case _ where !options.stackInYCbCr, .mode: referenceForm = .bytes
        case .average: referenceForm = .ycbcr(factor: nil)
        case .median, .sigmaClip: referenceForm = .ycbcr(factor: 2)
        }

        // The reference fixes the grid, the channel count, the registrar and
        // the colour form; the first other frame is decoded meanwhile.
        let refPath = paths[options.referenceIndex]
        let duplicates = duplicateIndices(paths)
        let early = paths.indices.first { $0 != options.referenceIndex && duplicates[$0] == nil }.map {
            EarlyDecode(index: $0, path: paths[$0], maxPixels: options.maxPixels, form: referenceForm)
        }
        var (decodedReference, decodeSeconds) = try measure {
            try DecodedFrame.read(refPath, maxPixels: options.maxPixels, form: referenceForm)
        }
        timings.withLock { $0.decode += decodeSeconds }
        let width = decodedReference.width, height = decodedReference.height
        let channels = decodedReference.channels
        let ycbcrFactor: Int?
        if case .ycbcr(let image) = decodedReference.pixels { ycbcrFactor = image.chromaFactor } else { ycbcrFactor = nil }
        let form: DecodedFrame.Form = ycbcrFactor.map { .ycbcr(factor: $0) } ?? (keepBytes ? .bytes : .floats)
        let read: @Sendable (FilePath) throws -> DecodedFrame = {
            try DecodedFrame.read($0, maxPixels: options.maxPixels, form: form)
        }

        // Calibration masters are built once; every light, the reference
        // first, is calibrated before it is measured or registered.
        let (calibration, calibrationSeconds) = try measure {
            try Calibration.load(options.calibration, width: width, height: height, channels: channels,
                                 maxPixels: options.maxPixels, memoryLimit: options.memoryLimit,
                                 temporaryDirectory: options.temporaryDirectory, threads: threads)
        }
        if let calibration {
            let (_, seconds) = measure { calibration.apply(to: &decodedReference.image) }
            timings.withLock { $0.calibrate += calibrationSeconds + seconds }
        }
        let reference = (exif: decodedReference.exif, bitDepth: decodedReference.bitDepth,
                         keywords: decodedReference.keywords)
        // Astro runs report each frame's background level and noise.
        let astro = calibration != nil || options.normalization != .none || options.alignment.usesStars
        let referenceBackground = options.normalization != .none ? decodedReference.image.backgroundStatistics : []
        let autoWeights = options.weighting == .auto

        /// What the workers need once a frame is decoded: the registrar
        /// and the reference's noise. Built on this thread while the
        /// workers decode their first frames.
        struct Registration: Sendable {
            var registrar: FrameRegistrar?
            var referenceSigma: Double
        }
        let registration = Latch<Registration>()
        // Released once its luma is made (the worker that prepares the
        // reference holds the other reference to it).
        var referenceForSetup: DecodedFrame? = decodedReference
        func buildRegistration() throws -> Registration {
            let referenceLuma = referenceForSetup!.luma(downsampledBy: 1).luma.floatPlane
            referenceForSetup = nil
            let referenceSigma = autoWeights ? estimateNoiseSigma(referenceLuma) : 0
            guard options.alignment != .none && options.givenTransforms == nil else {
                return Registration(registrar: nil, referenceSigma: referenceSigma)
            }
            let (registrar, seconds) = try measure {
                try wrapRegistration(refPath) {
                    try FrameRegistrar(reference: referenceLuma, alignment: options.alignment,
                                       minimumScore: options.minimumScore, starSigma: options.starDetectionSigma)
                }
            }
            timings.withLock { $0.register += seconds }
            return Registration(registrar: registrar, referenceSigma: referenceSigma)
        }

        /// One frame made ready for the kernel: for the average, the frame
        /// itself, warped band by band as it is folded; robust modes have
        /// already stored it.
        struct Prepared: Sendable {
            var report: FrameReport
            var frame: RowWarper?
            /// Cb and Cr when the average folds Y, Cb, Cr (`frame` is then Y).
            var chroma: RowWarper?
            var gains: [(gain: Float, offset: Float)] = []
        }

        // 8-bit frames keep 8 bits per sample in the robust modes' store: half
        // the memory, and the result against the truth is unchanged within
        // the tests' bound (RobustStackingTests). Calibration makes levels
        // finer than the file's, so calibrated frames, and 16-bit or float
        // files, keep 16.
        let storeDepth = options.storeDepth
            ?? (reference.bitDepth <= 8 && calibration == nil ? .eight : .sixteen)
        // Built before the workers start: populating its memory (132 MB for
        // the average's accumulators at 12 MP, 480 MB for the median's
        // stores) while they decode slowed everything down (the page
        // population and their allocations contend in the kernel); 20 × 12 MP
        // average, six alternating runs: 1.09–1.36 s against 1.23–1.36 s.
        // 8-bit frames whose transforms are all translations are warped as
        // the robust kernel reduces them (`DeferredWarpStore`): no warped
        // copy of the burst is written and read back.
        let translationsOnly = options.givenTransforms.map { $0.allSatisfy { $0.inverse?.isTranslation == true } }
            ?? (options.alignment == .translation || options.alignment == .none)
        var combiner = try Combiner(options: options, width: width, height: height, channels: channels,
                                    frameCount: paths.count, depth: storeDepth, ycbcrFactor: ycbcrFactor,
                                    deferWarps: keepBytes && translationsOnly)
        let directStores = combiner.frameStores
        // Robust modes: workers warp each frame and write it straight into
        // the (thread-safe) frame store, so prepared frames do not queue up
        // in memory. The average warps as it folds, on the consumer thread.
        let interpolation = options.interpolation
        /// Hands a registered frame on: warped into the store (robust modes),
        /// or as it is to the consumer for the fold (average); as Y and Cb, Cr
        /// when the kernel works on Y, Cb, Cr.
        let deliver: @Sendable (Int, FrameReport, DecodedFrame, Transform, [(gain: Float, offset: Float)]) throws -> Prepared = {
            index, report, decoded, transform, gains in
            let frame: RowWarper?, chroma: RowWarper?
            if let factor = ycbcrFactor {
                (frame, chroma) = decoded.ycbcrWarpers(by: transform, width: width, height: height, factor: factor,
                                                       interpolation: interpolation)
            } else {
                frame = decoded.rowWarper(by: transform, width: width, height: height, interpolation: interpolation)
                chroma = nil
            }
            guard let stores = directStores else {
                return Prepared(report: report, frame: frame, chroma: chroma, gains: gains)
            }
            let (_, seconds) = try measure {
                if let frame { try stores.main.store(frame: index, warping: frame, gains: gains) }
                if let chroma, let store = stores.chroma { try store.store(frame: index, warping: chroma, gains: []) }
            }
            timings.withLock { $0.warp += seconds }
            return Prepared(report: report)
        }
        // The decoded reference goes to the worker that prepares it and is
        // released with it, not held to the end (144 MB at 12 MP RGB).
        let referenceFrame = Mutex<DecodedFrame?>(consume decodedReference)
        // Frames whose samples all lie within 1/1000 of the scale
        // (`RegistrationScale.tinyPeak`): index and peak magnitude.
        let tinyFrames = Mutex<[(index: Int, peak: Float)]>([])
        let prepare: @Sendable (Int) -> Result<Prepared, StackerError> = { index in
            let path = paths[index]
            if let original = duplicates[index] {
                return .success(Prepared(report: FrameReport(path: path.description, reason: "the same file as frame \(original) (\(paths[original])); used once")))
            }
            do {
                var frame: DecodedFrame
                // Already decoded and calibrated (taken once: each index is prepared once).
                let calibrated = index == options.referenceIndex ? referenceFrame.withLock { $0.take() } : nil
                let decodedEarly = index == early?.index ? early?.take(as: form) : nil
                if let decodedEarly { timings.withLock { $0.decode += decodedEarly.seconds } }
                if let calibrated {
                    frame = calibrated
                } else if let ready = decodedEarly?.frame {
                    frame = ready
                } else {
                    let (d, seconds) = try measure { try read(path) }
                    timings.withLock { $0.decode += seconds }
                    frame = d
                }
                guard frame.width == width, frame.height == height else {
                    throw StackerError.invalidInput(path: path.description, reason: "frame is \(frame.width)×\(frame.height), the reference \(refPath) is \(width)×\(height)")
                }
                guard frame.channels == channels else {
                    throw StackerError.invalidInput(path: path.description, reason: "frame has \(frame.channels) channel(s), the reference \(refPath) has \(channels)")
                }
                if case .floats(let image) = frame.pixels, let peak = RegistrationScale.tinyPeak(image) {
                    tinyFrames.withLock { $0.append((index, peak)) }
                }
                if let calibration, calibrated == nil {
                    let (_, seconds) = measure { calibration.apply(to: &frame.image) }
                    timings.withLock { $0.calibrate += seconds }
                }
                // Built by the calling thread while this frame was decoded.
                // The reference itself needs it only for its noise (weights)
                // or its stars, so in a plain run its worker goes straight on
                // to the next frame while the registrar is built.
                let isReference = index == options.referenceIndex
                let setup = !isReference || autoWeights || options.alignment.usesStars ? try registration.wait() : nil
                let registrar = setup?.registrar, referenceSigma = setup?.referenceSigma ?? 0
                // Measured, weighted and registered on one luma plane, made
                // only when needed (the reference of a plain run needs none);
                // the translation search's shrunk copy comes from the same pass.
                let decoded = frame
                lazy var lumaPlanes = decoded.luma(downsampledBy: registrar?.searchFactor ?? 1)
                lazy var floatLuma = lumaPlanes.luma.floatPlane
                var report = FrameReport(path: path.description)
                var gains: [(gain: Float, offset: Float)] = []
                if options.normalization != .none {
                    let background = index == options.referenceIndex ? referenceBackground : frame.image.backgroundStatistics
                    gains = options.normalization.coefficients(frame: background, reference: referenceBackground)
                }
                if astro {
                    report.background = RobustStatistics.of(floatLuma).median
                    if !autoWeights { report.noiseSigma = estimateNoiseSigma(floatLuma) }
                }
                if autoWeights {
                    let sigma = index == options.referenceIndex ? referenceSigma : estimateNoiseSigma(floatLuma)
                    report.noiseSigma = sigma
                    // Inverse noise variance, relative to the reference (weight 1).
                    report.weight = sigma > 0 && referenceSigma > 0 ? (referenceSigma * referenceSigma) / (sigma * sigma) : 1
                }
                // The model's own verdict (translation, homography), else the score threshold.
                var accepted: Bool?
                if let given = options.givenTransforms?[index], given != .identity {
                    report.transform = given
                    report.score = 1
                } else if index == options.referenceIndex || registrar == nil {
                    if index == options.referenceIndex, let stars = registrar?.referenceStars {
                        report.starsFound = stars.found
                        report.starsMatched = stars.matched
                        report.fwhm = stars.fwhm
                    }
                    report.score = 1
                    report.used = true
                    return .success(try deliver(index, report, frame, .identity, gains))
                } else {
                    let (estimate, regSeconds) = try measure {
                        try wrapRegistration(path) {
                            // The translation reads a Y plane's bytes as they are; the other models take floats.
                            try registrar!.estimate(registrar!.searchFactor != nil ? lumaPlanes.luma : .floats(floatLuma),
                                                    downsampled: lumaPlanes.small)
                        }
                    }
                    timings.withLock { $0.register += regSeconds }
                    report.transform = estimate.transform
                    report.score = estimate.score.isFinite ? estimate.score : 0
                    report.alignmentNote = estimate.note
                    report.overlapAgreement = estimate.overlapAgreement
                    accepted = estimate.isAccepted
                    report.starsFound = estimate.stars?.found
                    report.starsMatched = estimate.stars?.matched
                    report.fwhm = estimate.stars?.fwhm
                    if let rejection = estimate.rejection {
                        report.reason = rejection
                        return .success(Prepared(report: report))
                    }
                }
                guard accepted ?? (report.score >= options.minimumScore) else {
                    report.reason = "registration score \(format(report.score)) is below the threshold \(format(options.minimumScore))"
                    return .success(Prepared(report: report))
                }
                report.used = true
                return .success(try deliver(index, report, frame, report.transform, gains))
            } catch {
                let e = (error as? StackerError) ?? .unreadable(path: path.description, reason: "\(error)")
                if options.skipBadFrames, index != options.referenceIndex, e != .interrupted {
                    return .success(Prepared(report: FrameReport(path: path.description, reason: e.reason)))
                }
                return .failure(e)
            }
        }

        var reports: [FrameReport] = []
        var warnings: [String] = []
        // The average folds `Combiner.foldBatch` frames per pass over its
        // accumulator (the same bits as one at a time).
        var pending: [Combiner.FoldFrame] = []
        func fold() {
            guard !pending.isEmpty else { return }
            let (split, seconds) = measure { combiner.add(pending, threads: threads) }
            pending.removeAll()
            // The fused pass's wall time, split as its thread-seconds were.
            let warpShare = split.warp + split.fold > 0 ? split.warp / (split.warp + split.fold) : 0
            timings.withLock { $0.warp += seconds * warpShare; $0.stack += seconds * (1 - warpShare) }
        }
        // Workers decode, register and warp ahead (at most `threads + 1`
        // frames in flight); this thread folds or stores them in input order.
        // The registrar is built here while the workers decode their first
        // frames; they wait for it (`registration`) before registering.
        func prelude() throws {
            do {
                registration.publish(.success(try buildRegistration()))
            } catch {
                let e = (error as? StackerError) ?? .stackingFailed(path: refPath.description, reason: "\(error)")
                registration.publish(.failure(e))
                throw e
            }
        }
        try orderedPipeline(count: paths.count, threads: threads, window: threads + 1,
                            prelude: prelude, produce: prepare) { index, outcome in
            var prepared = try outcome.get()
            if !sharpness.isEmpty { prepared.report.sharpness = sharpness[index] }
            if let frame = prepared.frame {
                pending.append(Combiner.FoldFrame(frame: frame, chroma: prepared.chroma,
                                                  weight: Float(prepared.report.weight), gains: prepared.gains))
                if pending.count >= Combiner.foldBatch { fold() }
            }
            if !prepared.report.used, let reason = prepared.report.reason {
                warnings.append("\(prepared.report.path): skipped: \(reason)")
            }
            reports.append(prepared.report)
            progress(StackProgress(stage: .aligning, completed: reports.count, total: paths.count,
                                   path: prepared.report.path))
        }
        fold()
        // The registrar (the reference luma, 48 MB at 12 MP, and its FFT
        // buffers) is freed before the reduce allocates its output, which
        // then reuses that memory instead of faulting in fresh pages.
        registration.release()
        if let warning = tinyScaleWarning(tinyFrames.withLock { $0 }, paths: paths) { warnings.append(warning) }
        let used = reports.filter(\.used).count
        guard used >= 2 else {
            let why = reports.first { !$0.used }.map { "; \($0.path): \($0.reason ?? "not used")" } ?? ""
            throw StackerError.stackingFailed(path: "", reason: "only \(used) of \(paths.count) frames could be used, at least two are needed\(why)")
        }
        progress(StackProgress(stage: .combining, completed: 0, total: used, path: nil))
        let weights = reports.map { $0.used ? Float($0.weight) : 0 }
        let (finished, reduceSeconds) = try measure { try combiner.finish(weights: weights, threads: threads) }
        let image = finished.image
        // Deferred warps run inside the reduce: their share of its wall time counts as warp.
        timings.withLock {
            $0.warp += reduceSeconds * finished.warpShare
            $0.stack += reduceSeconds * (1 - finished.warpShare)
        }
        var result = StackResult(
            image: image,
            frames: reports, referenceIndex: options.referenceIndex,
            referenceExif: reference.exif, referenceBitDepth: reference.bitDepth,
            timings: timings.withLock { $0 }, warnings: warnings)
        result.referenceKeywords = reference.keywords
        result.timings.total = seconds(since: start)
        return result
    }

    /// For every path that names the same file as an earlier one (after
    /// resolving `.`, `..` and links), the index of that earlier path.
    static func duplicateIndices(_ paths: [FilePath]) -> [Int: Int] {
        var firstSeen: [FilePath: Int] = [:]
        var duplicates: [Int: Int] = [:]
        for (i, p) in paths.enumerated() {
            let key = OutputPath.canonical(p)
            if let j = firstSeen[key] { duplicates[i] = j } else { firstSeen[key] = i }
        }
        return duplicates
    }

    /// One warning line for the frames whose data use less than 1/1000 of
    /// the sample scale (`tiny`: index and peak |sample|), naming the first
    /// of them and saying how to keep the data; nil when there are none.
    /// Such frames stack correctly (registration rescales them), but 8- and
    /// 16-bit outputs quantise them to 0: black.
    static func tinyScaleWarning(_ tiny: [(index: Int, peak: Float)], paths: [FilePath]) -> String? {
        guard let first = tiny.min(by: { $0.index < $1.index }) else { return nil }
        let others = tiny.count > 1 ? " (and \(tiny.count - 1) more frame\(tiny.count > 2 ? "s" : ""))" : ""
        return "\(paths[first.index])\(others): the samples use less than 1/1000 of the file's scale (largest "
            + "\(first.peak) of 1), so an 8- or 16-bit output comes out black; "
            + "write --depth 32f FITS or TIFF to keep the values, or rescale the frames (e.g. 32-bit integer "
            + "data holding 16-bit counts: save them as 16-bit)"
    }

    /// Turns a registration failure into a StackerError about `path`. Too
    /// few reference stars is advised in the CLI's words: the options that
    /// choose another reference or lower the detection threshold.
    private static func wrapRegistration<T>(_ path: FilePath, _ body: () throws -> T) throws -> T {
        do { return try body() } catch RegistrationError.tooFewStars(let found, let needed, let sigma) {
            throw StackerError.stackingFailed(
                path: path.description,
                reason: "registration failed: found \(found) star\(found == 1 ? "" : "s") in the reference frame; "
                    + "star alignment needs at least \(needed). Choose a reference with more stars (--reference), "
                    + "or lower the detection threshold (--star-sigma, now \(JSONText.number(sigma)))")
        } catch let e as RegistrationError {
            throw StackerError.stackingFailed(path: path.description, reason: "registration failed: \(e.description)")
        }
    }
}

/// Runs `body` and returns its value and the wall-clock seconds it took.
func measure<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let start = ContinuousClock.now
    let value = try body()
    return (value, seconds(since: start))
}

/// Seconds elapsed since `start`.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let d = ContinuousClock.now - start
    return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
}

/// A score or threshold printed with three decimals.
func format(_ x: Double) -> String {
    let scaled = (x * 1000).rounded() / 1000
    return "\(scaled)"
}
