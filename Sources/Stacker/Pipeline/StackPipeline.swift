import Registration

/// The stacking pipeline: decode → register → warp → combine, as in
/// docs/architecture.md. `stack(_:options:progress:)` is its public face.
///
/// Frames are decoded, registered and warped concurrently (at most
/// `options.threads` at a time) and folded in input order, so the output does
/// not depend on the thread count. The average path streams: it holds the
/// accumulators plus the frames in flight, never the whole burst.
enum StackPipeline {
    /// Stacks the files at `paths`; see `run(sources:options:progress:)`.
    static func run(paths: [some FilePathConvertible], options: StackOptions,
                    progress: @Sendable (StackProgress) -> Void = { _ in }) throws -> StackResult {
        try run(sources: paths.map { .file($0.filePath) }, options: options, progress: progress)
    }

    /// Stacks `sources` onto the grid of the reference frame.
    /// - Parameters:
    ///   - sources: at least two frames, files or images in memory.
    ///   - options: mode, alignment, reference, threads, limits.
    ///   - progress: called (from any thread) as frames finish.
    /// - Returns: the stacked image and a record per frame.
    /// - Throws: `StackerError` naming the offending frame.
    static func run(sources: [FrameSource], options requested: StackOptions,
                    progress: @Sendable (StackProgress) -> Void = { _ in }) throws -> StackResult {
        let clock = StageClock()
        let names = sources.indices.map { sources[$0].name(at: $0) }
        try validate(requested, frameCount: sources.count, names: names)
        let (chosen, sharpness) = try choosingReference(requested, sources: sources, names: names, clock: clock)
        let options = chosen.slicedToFrameRange(frameCount: sources.count)
        let threads = max(1, options.threads)
        let duplicates = duplicateIndices(sources)

        // The reference fixes the grid, the channel count, the registrar and
        // the colour form; the first other frame is decoded meanwhile.
        let referenceForm = options.decodeForm ?? StackPlan.referenceForm(options)
        let early = sources.indices.first {
            $0 != options.referenceIndex && duplicates[$0] == nil && options.excludedFrames[$0] == nil
        }.map {
            EarlyDecode(index: $0, source: sources[$0], maxPixels: options.maxPixels, form: referenceForm)
        }
        var reference = try clock.time(.decode) {
            try DecodedFrame.load(sources[options.referenceIndex], maxPixels: options.maxPixels, form: referenceForm)
        }
        // Set when the reference is a mosaic that will be debayered.
        let debayerRecord = DebayerRecord(channels: reference.channels, fileSays: reference.cfa, options: options)
        if options.drizzle != nil, options.robustAverage, debayerRecord != nil {
            // Refused before the 1× stack, not after it.
            throw StackerError.invalidInput(path: names[options.referenceIndex], reason: "--robust with --scale needs colour frames, not a CFA mosaic (Bayer drizzle); use --mode sigma-clip")
        }
        let calibration = try calibrating(&reference, options: options, clock: clock)
        // Under `--wb camera` every raw takes the reference's as-shot balance.
        let referenceBalance = reference.raw?.whiteBalance
        clock.time(.calibrate) {
            reference.debayer(options.cfa, method: options.debayer, whiteBalance: options.whiteBalance,
                              referenceBalance: referenceBalance)
        }
        let plan = StackPlan(options: options, reference: reference.planFacts)
        let channels = reference.channels
        let band = options.rowBand.map { RowBand.rows(band: $0.band, of: $0.of, height: reference.height) }
        // Built before the workers start: populating its memory while they
        // decode would contend with their allocations.
        var combiner = try Combiner(plan: plan.combination, width: reference.width, height: reference.height,
                                    channels: reference.channels, frameCount: sources.count,
                                    temporaryDirectory: options.temporaryDirectory,
                                    makesRejectionMap: plan.makesRejectionMap,
                                    combines: options.product != .records)
        let registration = Latch<RegistrationSetup>()
        // Released once its luma is made; the worker that prepares the
        // reference holds the other reference to it, and frees it with it.
        var setupReference: DecodedFrame? = reference
        var carried = CarriedMetadata(exif: reference.exif, bitDepth: reference.bitDepth, keywords: reference.keywords,
                                      iccProfile: reference.iccProfile, xmp: reference.xmp, iptc: reference.iptc)
        carried.linearLight = reference.raw != nil
        let referenceRange = reference.storedRange
        if options.whiteBalance == .camera { carried.whiteBalance = referenceBalance }
        carried.debayer = debayerRecord
        let preparer = FramePreparer(sources: sources, names: names, options: options, plan: plan,
                                     calibration: calibration, registration: registration, early: early,
                                     reference: consume reference, duplicates: duplicates,
                                     stores: combiner.frameStores, clock: clock)
        // Workers decode, register and warp ahead (at most `threads + 1`
        // frames in flight); this thread builds the registrar meanwhile, then
        // folds or stores the frames in input order.
        var collector = FrameCollector(total: sources.count, sharpness: sharpness, threads: threads, clock: clock,
                                       folds: options.product != .records)
        try orderedPipeline(count: sources.count, threads: threads, window: threads + 1, prelude: {
            try publishSetup(to: registration, from: &setupReference, options: options, plan: plan,
                             referenceName: names[options.referenceIndex], clock: clock)
        }, produce: preparer.prepare) { index, outcome in
            try collector.take(outcome.get(), index: index, into: &combiner, progress: progress)
        }
        collector.flush(into: &combiner)
        // The registrar (the reference luma and its FFT buffers) is freed
        // before the reduce allocates its output, which then reuses that memory.
        registration.release()
        if let warning = preparer.tinyScaleWarning { collector.warnings.append(warning) }
        collector.warnings += preparer.colourWarnings
        if let warning = narrowRangeWarning(referenceRange, bitDepth: carried.bitDepth, options: options,
                                            name: names[options.referenceIndex]) {
            collector.warnings.append(warning)
        }
        var reports = collector.reports, warnings = collector.warnings
        let selection = options.keep.flatMap {
            keeping($0, reports: &reports, warnings: &warnings, combiner: &combiner, options: options)
        }
        if options.product != .image {
            var result = StackResult(image: Image(width: 0, height: 0, channels: channels), frames: reports,
                                     referenceIndex: options.referenceIndex, metadata: carried, options: options,
                                     timings: clock.reading, warnings: warnings)
            if options.product == .partialSums {
                result.partialSums = combiner.partialSums().map {
                    PartialSums(sums: $0.sums, weight: $0.weight, frames: options.frameRange ?? 0..<sources.count,
                                names: names, options: options, metadata: carried)
                }
            }
            return result
        }
        var (image, map) = try combining(reports, with: &combiner, threads: threads, rows: band, clock: clock,
                                         progress: progress)
        var weightMap: Image?
        if let drizzle = options.drizzle {
            let drizzled = try DrizzlePass.run(DrizzlePass.Input(
                sources: sources, names: names, options: options, drizzle: drizzle, calibration: calibration,
                reports: reports, stack: image), clock: clock)
            image = drizzled.image
            weightMap = Image(width: image.width, height: image.height, planes: [drizzled.weights])
        }
        var result = StackResult(image: image, frames: reports, referenceIndex: options.referenceIndex,
                                 metadata: carried, options: options, timings: clock.reading, warnings: warnings)
        result.rejectionMap = map
        result.selection = selection
        result.weightMap = weightMap
        return result
    }

    /// A warning when the reference is 16-bit FITS data whose values span
    /// less than 1/16 of the type's range and the output keeps that scale
    /// (`OutputScale.native`); else nil.
    static func narrowRangeWarning(_ range: ClosedRange<Double>?, bitDepth: Int, options: StackOptions,
                                   name: String) -> String? {
        guard let range, bitDepth == 16, options.outputScale == .native,
              range.upperBound - range.lowerBound < 65536 / 16 else { return nil }
        return "\(name): its 16-bit data span only \(JSONText.number(range.lowerBound))…\(JSONText.number(range.upperBound)) ADU, under 1/16 of the range; the output keeps this scale (--output-scale data stretches it)"
    }

    /// Drops from `combiner` the used frames `keep` does not keep, marks
    /// their records (unused, with the measure and the cut-off as the
    /// reason) and adds one line naming them to `warnings`.
    private static func keeping(_ keep: FrameSelection, reports: inout [FrameReport], warnings: inout [String],
                                combiner: inout Combiner, options: StackOptions) -> FrameSelection.Outcome? {
        let used = reports.filter(\.used).count
        guard let outcome = keep.select(reports, referenceIndex: options.referenceIndex,
                                        usesStars: options.alignment.usesStars, by: options.keepBy) else { return nil }
        let side = outcome.measure.lowerIsBetter ? "above" : "below"
        for (index, value) in outcome.dropped {
            combiner.drop(frame: index)
            reports[index].used = false
            reports[index].weight = 0
            reports[index].reason = "dropped by --keep: \(outcome.measure.rawValue) \(value) \(side) the cut-off \(outcome.cutoff)"
        }
        let names = outcome.dropped.map { "\(reports[$0.index].path) (\($0.value))" }.joined(separator: ", ")
        warnings.append("--keep: dropped \(outcome.dropped.count) of \(used) frames, \(outcome.measure.rawValue) \(side) \(outcome.cutoff): \(names)")
        return outcome
    }

    /// Checks what can be checked before any frame is read.
    private static func validate(_ options: StackOptions, frameCount: Int, names: [String]) throws {
        guard frameCount >= 2 else {
            throw StackerError.invalidInput(path: names.first ?? "",
                                            reason: frameCount == 0 ? "no frames given" : "need at least two frames to stack, got one")
        }
        guard options.referenceIndex >= 0 && options.referenceIndex < frameCount else {
            throw StackerError.invalidInput(path: "", reason: "reference index \(options.referenceIndex) is out of range 0…\(frameCount - 1)")
        }
        guard options.starDetectionSigma > 0 && options.starDetectionSigma.isFinite else {
            throw StackerError.invalidInput(path: "", reason: "the star detection threshold must be a positive number of σ, not \(options.starDetectionSigma)")
        }
        if let given = options.givenTransforms, given.count != frameCount {
            throw StackerError.invalidInput(path: "", reason: "\(given.count) transforms given for \(frameCount) frames")
        }
        if let reason = options.keep?.invalidReason {
            throw StackerError.invalidInput(path: "", reason: reason)
        }
        if let reason = options.starMeasureConflict(transformsGiven: options.givenTransforms != nil) {
            throw StackerError.invalidInput(path: "", reason: reason)
        }
        if let drizzle = options.drizzle {
            if let reason = drizzle.invalidReason { throw StackerError.invalidInput(path: "", reason: reason) }
            if options.rejection == nil, options.mode == .median || options.mode == .mode {
                throw StackerError.invalidInput(path: "", reason: "drizzle (--scale) works with the average, sigma-clip and --reject, not \(options.mode.rawValue)")
            }
            if options.product != .image {
                throw StackerError.invalidInput(path: "", reason: "drizzle (--scale) makes a whole image; it cannot be sharded into partial sums or row bands")
            }
            if options.alignment == .local {
                throw StackerError.invalidInput(path: "", reason: "drizzle (--scale) maps drops through one transform per frame; --align local's displacement field is not supported with it")
            }
        }
        if let reason = options.rejection?.invalidReason {
            throw StackerError.invalidInput(path: "", reason: reason)
        }
        if options.makesRejectionMap && options.rejection == nil && options.mode != .sigmaClip {
            throw StackerError.invalidInput(path: "", reason: "a rejection map needs a rejecting stack (a rejection algorithm or sigma-clip), not \(options.mode.rawValue)")
        }
        if let range = options.frameRange, range.isEmpty || range.lowerBound < 0 || range.upperBound > frameCount {
            throw StackerError.invalidInput(path: "", reason: "the frames \(range.lowerBound):\(range.upperBound) are not a slice of 0:\(frameCount)")
        }
        if let index = options.excludedFrames.keys.first(where: { !(0..<frameCount).contains($0) || $0 == options.referenceIndex }) {
            throw StackerError.invalidInput(path: "", reason: index == options.referenceIndex
                ? "the reference frame \(index) cannot be left out" : "frame \(index) to leave out is out of range 0…\(frameCount - 1)")
        }
    }

    /// The options with the reference chosen (the sharpest frame under
    /// `automaticReference`), and every frame's sharpness when measured.
    private static func choosingReference(_ requested: StackOptions, sources: [FrameSource], names: [String],
                                          clock: StageClock) throws -> (StackOptions, [Double?]) {
        guard requested.automaticReference else { return (requested, []) }
        var options = requested
        let choice = try clock.time(.decode) { try ReferenceSelection.sharpest(sources, names: names, options: options) }
        options.referenceIndex = choice.index
        return (options, choice.sharpness)
    }

    /// Builds the calibration masters (nil when none are given) and
    /// calibrates the reference; every other light is calibrated as it is
    /// decoded, before it is measured or registered.
    private static func calibrating(_ reference: inout DecodedFrame, options: StackOptions,
                                    clock: StageClock) throws -> Calibration? {
        let (calibration, buildSeconds) = try measure {
            try Calibration.load(options.calibration, width: reference.width, height: reference.height,
                                 channels: reference.channels, maxPixels: options.maxPixels,
                                 memoryLimit: options.memoryLimit, temporaryDirectory: options.temporaryDirectory,
                                 threads: max(1, options.threads),
                                 mosaic: reference.channels == 1 && options.cfa.resolve(reference.cfa) != nil)
        }
        guard let calibration else { return nil }
        clock.add(buildSeconds, to: .calibrate)
        clock.time(.calibrate) { calibration.apply(to: &reference.image) }
        return calibration
    }

    /// Builds the registration set-up from the reference (then dropped) and
    /// publishes it to the workers waiting for it, or its failure.
    private static func publishSetup(to latch: Latch<RegistrationSetup>, from reference: inout DecodedFrame?,
                                     options: StackOptions, plan: StackPlan, referenceName: String,
                                     clock: StageClock) throws {
        do {
            let luma = reference!.luma(downsampledBy: 1).luma.floatPlane
            reference = nil
            latch.publish(.success(try RegistrationSetup(referenceLuma: luma, options: options, plan: plan,
                                                         referenceName: referenceName, clock: clock)))
        } catch {
            let e = (error as? StackerError) ?? .stackingFailed(path: referenceName, reason: "\(error)")
            latch.publish(.failure(e))
            throw e
        }
    }

    /// Reduces the combiner to the stacked image, once at least two frames
    /// were used (`reports`: every frame's record).
    private static func combining(_ reports: [FrameReport], with combiner: inout Combiner, threads: Int,
                                  rows: Range<Int>? = nil, clock: StageClock, progress: @Sendable (StackProgress) -> Void) throws
        -> (image: Image, rejectionMap: RejectionMap?) {
        let used = reports.filter(\.used).count
        guard used >= 2 else {
            let why = reports.first { !$0.used }.map { "; \($0.path): \($0.reason ?? "not used")" } ?? ""
            throw StackerError.stackingFailed(path: "", reason: "only \(used) of \(reports.count) frames could be used, at least two are needed\(why)")
        }
        progress(StackProgress(stage: .combining, completed: 0, total: used, path: nil))
        let weights = reports.map { $0.used ? Float($0.weight) : 0 }
        let (finished, seconds) = try measure { try combiner.finish(weights: weights, threads: threads, rows: rows) }
        // Deferred warps run inside the reduce: their share of its wall time counts as warp.
        clock.addFused(seconds, warpShare: finished.warpShare)
        return (finished.image, finished.rejectionMap)
    }

    /// For every frame named again (the same file after resolving `.`,
    /// `..` and links, and the same frame in it), the index of its first
    /// mention. Images in memory are never the same.
    static func duplicateIndices(_ sources: [FrameSource]) -> [Int: Int] {
        struct Key: Hashable { var path: FilePath; var frame: Int }
        var firstSeen: [Key: Int] = [:]
        var duplicates: [Int: Int] = [:]
        for (i, source) in sources.enumerated() {
            let key: Key
            switch source {
            case .file(let path): key = Key(path: path.canonical, frame: -1)
            case .frameInFile(let path, let frame): key = Key(path: path.canonical, frame: frame)
            case .image: continue
            }
            if let j = firstSeen[key] { duplicates[i] = j } else { firstSeen[key] = i }
        }
        return duplicates
    }

    /// One warning line for the frames whose data use less than 1/1000 of
    /// the sample scale (`tiny`: index and peak |sample|), naming the first
    /// of them and saying how to keep the data; nil when there are none.
    /// Such frames stack correctly (registration rescales them), but 8- and
    /// 16-bit outputs quantise them to 0: black.
    static func tinyScaleWarning(_ tiny: [(index: Int, peak: Float)], names: [String]) -> String? {
        guard let first = tiny.min(by: { $0.index < $1.index }) else { return nil }
        let others = tiny.count > 1 ? " (and \(tiny.count - 1) more frame\(tiny.count > 2 ? "s" : ""))" : ""
        return "\(names[first.index])\(others): the samples use less than 1/1000 of the file's scale (largest "
            + "\(first.peak) of 1), so an 8- or 16-bit output comes out black; "
            + "write --depth 32f FITS or TIFF to keep the values, or rescale the frames (e.g. 32-bit integer "
            + "data holding 16-bit counts: save them as 16-bit)"
    }
}

/// The consumer's side of the pipeline: takes prepared frames in input
/// order, folds the average's `Combiner.foldBatch` at a time (the same bits
/// as one at a time), and keeps the records and warnings.
struct FrameCollector {
    private(set) var reports: [FrameReport] = []
    var warnings: [String] = []
    private var pending: [Combiner.FoldFrame] = []
    private let total: Int
    private let sharpness: [Double?]
    private let threads: Int
    private let clock: StageClock
    /// Whether frames are folded into the average (not when only records are made).
    private let folds: Bool

    init(total: Int, sharpness: [Double?], threads: Int, clock: StageClock, folds: Bool = true) {
        self.folds = folds
        self.total = total
        self.sharpness = sharpness
        self.threads = threads
        self.clock = clock
    }

    /// Takes frame `index`, prepared.
    mutating func take(_ prepared: PreparedFrame, index: Int, into combiner: inout Combiner,
                       progress: @Sendable (StackProgress) -> Void) {
        var prepared = prepared
        if !sharpness.isEmpty { prepared.report.sharpness = sharpness[index] }
        if folds, let frame = prepared.frame {
            pending.append(Combiner.FoldFrame(frame: frame, chroma: prepared.chroma,
                                              weight: Float(prepared.report.weight), gains: prepared.gains,
                                              chromaGains: prepared.chromaGains))
            if pending.count >= Combiner.foldBatch { flush(into: &combiner) }
        }
        if !prepared.report.used, let reason = prepared.report.reason {
            warnings.append("\(prepared.report.path): skipped: \(reason)")
        }
        reports.append(prepared.report)
        progress(StackProgress(stage: .aligning, completed: reports.count, total: total, path: prepared.report.path))
    }

    /// Folds the frames still pending into the average.
    mutating func flush(into combiner: inout Combiner) {
        guard !pending.isEmpty else { return }
        let (split, seconds) = measure { combiner.add(pending, threads: threads) }
        pending.removeAll()
        // The fused pass's wall time, split as its thread-seconds were.
        clock.addFused(seconds, warpShare: split.warp + split.fold > 0 ? split.warp / (split.warp + split.fold) : 0)
    }
}

extension DecodedFrame {
    /// What the plan needs to know of a decoded reference.
    var planFacts: StackPlan.Reference {
        var factor: Int?
        if case .ycbcr(let image) = pixels { factor = image.chromaFactor }
        return StackPlan.Reference(width: width, height: height, channels: channels, bitDepth: bitDepth,
                                   ycbcrFactor: factor)
    }
}
