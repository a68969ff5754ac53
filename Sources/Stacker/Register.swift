/// Registers `frames` to the reference frame without stacking them: each
/// frame's transform, score, acceptance and reason, as a stack's report
/// gives them (`stack register`). `TransformsFile.json(records:…)` writes
/// them for `--transforms`.
///
/// With `options.frameRange`, only that slice is registered (the other
/// records say they were left out), against the same reference wherever it
/// is: slices registered on separate machines concatenate
/// (`TransformsFile.read(_:)` of several files) into what one run over
/// every frame gives.
///
/// - Parameters:
///   - frames: the whole burst, as `stack(_:options:progress:)` takes it.
///   - options: alignment, reference, limits. Nothing is combined, but
///     frames are decoded as `options.mode` (and `--keep`, `--reject`, a
///     rejection map) would have them decoded: a JPEG's luma is its own Y
///     for some modes and computed from its RGB for others, so give the
///     options the stack will use and its transforms are the ones that
///     stack would measure, bit for bit.
///   - progress: called as frames are aligned.
/// - Returns: a result with one record per frame and no image (0 × 0).
/// - Throws: `StackerError`, naming the frame that failed.
public func register(_ frames: [FrameSource], options: StackOptions = StackOptions(),
                     progress: @Sendable (StackProgress) -> Void = { _ in }) throws -> StackResult {
    var o = options
    o.product = .records
    o.decodeForm = StackPlan.referenceForm(options)
    // Nothing is combined: the pipeline allocates no accumulator or store.
    o.mode = .average
    o.rejection = nil
    o.keep = nil
    o.makesRejectionMap = false
    return try StackPipeline.run(sources: frames, options: o, progress: progress)
}

/// The unnormalised average of `options.frameRange` of `frames` (all of
/// them when nil): Σw·x and Σw per pixel on the reference's grid, in
/// `StackResult.partialSums` (the result's image is 0 × 0). The sums of
/// disjoint slices that cover the burst merge (`ShardMerge`) into its
/// average, within float rounding of a one-shot `stack`.
///
/// Frames are combined in RGB even from JPEG files (the one-shot average
/// of a JPEG burst works on Y, Cb, Cr), since the sums must share the
/// output grid.
/// - Throws: `StackerError.invalidInput` for a mode other than a plain
///   average (robust modes shard by rows: `RowBand`); else as `stack`.
public func stackPartialSums(_ frames: [FrameSource], options: StackOptions = StackOptions(),
                             progress: @Sendable (StackProgress) -> Void = { _ in }) throws -> StackResult {
    guard options.mode == .average, options.rejection == nil, options.keep == nil, !options.makesRejectionMap else {
        throw StackerError.invalidInput(path: "", reason: "partial sums are made by the average alone (no --keep, --reject or rejection map); shard a robust stack by rows")
    }
    var o = options
    o.product = .partialSums
    o.stackInYCbCr = false
    return try StackPipeline.run(sources: frames, options: o, progress: progress)
}

/// The stack of `frames` computed for band `band` of `bands` of its rows
/// only (`RowBand.rows`): a robust kernel warps and reduces just the strips
/// that band needs (and, in Y, Cb, Cr, the chroma rows around it); frames
/// are still decoded and registered whole. Only the band's rows of the
/// result's image are set: take them with `RowBand(_:band:of:)`, which are
/// the one-shot stack's rows bit for bit. The average computes every row.
/// - Precondition: `0 <= band < bands`.
public func stackRows(_ frames: [FrameSource], options: StackOptions = StackOptions(), band: Int, of bands: Int,
                      progress: @Sendable (StackProgress) -> Void = { _ in }) throws -> StackResult {
    precondition((0..<bands).contains(band), "band \(band) of \(bands)")
    var o = options
    o.rowBand = (band, bands)
    return try StackPipeline.run(sources: frames, options: o, progress: progress)
}
