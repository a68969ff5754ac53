/// Stacks `frames` onto the grid of the reference frame: the library's
/// front door, the one call the `stack` command makes.
///
///     let result = try stack(scene.frames.map { .image($0) }, options: options)
///     try result.write(to: "clean.jpg")
///     print(Metrics.psnr(result.image, scene.groundTruth))
///
/// - Parameters:
///   - frames: at least two frames: files (`.file`, `.path`) or images in
///     memory (`.image`), in any mix. Every frame must have the
///     reference's size and channel count.
///   - options: mode, alignment, reference, threads, limits (`StackOptions`).
///   - progress: called, from any thread, as frames are aligned and as the
///     combination starts. It must return quickly.
/// - Returns: the stacked image with a record per frame; it writes itself
///   (`StackResult.write(to:quality:depth:threads:)`) and its report
///   (`StackResult.report(output:)`).
/// - Throws: `StackerError`, naming the frame that failed.
public func stack(_ frames: [FrameSource], options: StackOptions = StackOptions(),
                  progress: @Sendable (StackProgress) -> Void = { _ in }) throws -> StackResult {
    try StackPipeline.run(sources: frames, options: options, progress: progress)
}
