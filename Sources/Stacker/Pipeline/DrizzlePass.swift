import Registration

/// The drizzle of a run (`StackOptions.drizzle`), after its 1× stack: the
/// frames the 1× stack used are decoded again, one at a time, calibrated
/// and normalised as before, and dropped through the transforms the 1×
/// run found onto the finer grid (`DrizzleAccumulator`).
///
/// - The 1× stack fills output pixels no drop reached, and, for
///   sigma-clip and the rejection family, is the centre samples are
///   judged against (`DrizzleRejection`): rejection is decided at 1×, the
///   drizzle skips what it rejects.
/// - A CFA mosaic (the file's pattern or `--cfa`) is not debayered: each
///   sample drops into its own colour's plane (Bayer drizzle), after the
///   white balance; a camera raw's colour matrix is applied to the result.
/// - With `--robust`, each sample's weight is multiplied by its
///   robustness against the robust 1× stack (`DrizzleRobustness`), so
///   what moved fades; with `--sr-merge kernel`, samples spread by
///   kernels steered by the 1× stack (`SteeredKernelField`), not drops.
/// - Memory: the accumulators (two planes per channel of the output size)
///   and at most `threads + 1` frames in flight.
enum DrizzlePass {
    /// What the pass needs from the 1× run.
    struct Input {
        var sources: [FrameSource]
        var names: [String]
        var options: StackOptions
        var drizzle: DrizzleOptions
        var calibration: Calibration?
        var reports: [FrameReport]
        /// The 1× stack.
        var stack: Image
    }

    /// The drizzled image and its weight map (`DrizzleAccumulator.finish`).
    static func run(_ input: Input, clock: StageClock) throws -> (image: Image, weights: Plane) {
        let options = input.options, threads = max(1, options.threads)
        let used = input.reports.indices.filter { input.reports[$0].used }
        let size = input.drizzle.outputSize(width: input.stack.width, height: input.stack.height)
        guard size.width * size.height <= options.maxPixels else {
            throw StackerError.invalidInput(path: "", reason: "--scale \(input.drizzle.scale) would make a \(size.width)×\(size.height) output, more pixels than the limit of \(options.maxPixels) (--max-pixels)")
        }
        let reference = try clock.time(.decode) { try decode(options.referenceIndex, input, referenceBalance: nil) }
        let balance = reference.raw?.whiteBalance
        let referenceBackground = options.normalization != .none ? reference.image.backgroundStatistics : []
        let mosaic = reference.pattern != nil
        // The reference's noise is measured only for the merges that use it.
        let noise = options.robustAverage || input.drizzle.merge == .kernel ? noiseSigmas(reference) : nil
        let steering = noise.flatMap { n in
            input.drizzle.merge == .kernel ? clock.time(.stack) { SteeredKernelField(luma: input.stack.luma, noise: n.luma) } : nil
        }
        let accumulator = DrizzleAccumulator(inputWidth: input.stack.width, inputHeight: input.stack.height,
                                             channels: input.stack.channels, mosaic: mosaic, options: input.drizzle,
                                             steering: steering)
        // A raw's mosaic drops in camera colour and the matrix comes last, so
        // the 1× stack (already through it) is taken back to camera colour.
        let matrix = mosaic && options.whiteBalance != .none ? (reference.raw?.cameraToSRGB).flatMap { $0.count == 9 ? $0 : nil } : nil
        let inverse = matrix.flatMap { Transform(matrix: $0.map(Double.init)).inverse }.map { $0.matrix.map(Float.init) }
        let stack = inverse.map { RawColour.transformed(input.stack, matrix: $0) } ?? input.stack
        var rejection = options.mode == .sigmaClip || options.rejection != nil
            ? DrizzleRejection(stack: stack, kappaLow: options.kappaLow, kappaHigh: options.kappaHigh) : nil
        let robustness = noise.flatMap { n in
            options.robustAverage ? DrizzleRobustness(stack: stack, noise: n.channels, scale: input.drizzle.scale) : nil
        }
        @Sendable func prepared(_ k: Int) -> Result<DrizzleFrame, StackerError> {
            let index = used[k]
            do {
                let decoded = index == options.referenceIndex ? reference : try clock.time(.decode) { try decode(index, input, referenceBalance: balance) }
                guard decoded.pattern == reference.pattern, decoded.image.channels == reference.image.channels else {
                    throw StackerError.invalidInput(path: input.names[index], reason: "its colour layout differs from the reference's; drizzle needs one layout")
                }
                var image = decoded.image
                if options.normalization != .none {
                    let gains = options.normalization.coefficients(frame: image.backgroundStatistics, reference: referenceBackground)
                    for c in image.planes.indices {
                        let g = gains[c]
                        image.planes[c].pixels = image.planes[c].pixels.map { g.gain * $0 + g.offset }
                    }
                }
                var frame = DrizzleFrame(planes: image.planes, mosaic: decoded.pattern,
                                         transform: input.reports[index].transform, options: input.drizzle)
                frame.robustness = robustness?.weights(for: frame)
                return .success(frame)
            } catch {
                return .failure((error as? StackerError) ?? .unreadable(path: input.names[index], reason: "\(error)"))
            }
        }
        // Rejection first measures the spread of every frame's samples about the 1× stack.
        if rejection != nil {
            try orderedPipeline(count: used.count, threads: threads, window: threads + 1, produce: prepared) { _, outcome in
                let frame = try outcome.get()
                clock.time(.stack) { rejection?.measure(frame, scale: input.drizzle.scale) }
            }
            rejection?.finishMeasuring()
        }
        let judge = rejection
        try orderedPipeline(count: used.count, threads: threads, window: threads + 1, produce: { k in
            prepared(k).map { frame in
                var frame = frame
                judge?.reject(&frame, scale: input.drizzle.scale)
                return frame
            }
        }) { k, outcome in
            let frame = try outcome.get()
            let weight = Float(input.reports[used[k]].weight)
            clock.time(.stack) { accumulator.add(frame, weight: weight > 0 ? weight : 1, threads: threads) }
        }
        var (image, weights) = accumulator.finish { channel, x, y in
            DrizzleRejection.bilinear(stack.planes[channel], x: x, y: y) ?? 0
        }
        if let matrix, inverse != nil { image = RawColour.transformed(image, matrix: matrix) }
        return (image, weights)
    }

    /// The reference frame's noise σ per channel and in its luma
    /// (`estimateNoiseSigma`); a mosaic's from one colour's sites.
    private static func noiseSigmas(_ reference: Decoded) -> (channels: [Double], luma: Double) {
        guard reference.pattern != nil else {
            return (reference.image.planes.map(estimateNoiseSigma), estimateNoiseSigma(reference.image.luma))
        }
        let mosaic = reference.image.planes[0]
        let w = mosaic.width / 2, h = mosaic.height / 2
        var sites = Plane(width: w, height: h)
        for y in 0..<h { for x in 0..<w { sites.pixels[y * w + x] = mosaic[2 * x, 2 * y] } }
        let sigma = estimateNoiseSigma(sites)
        return ([sigma, sigma, sigma], sigma)
    }

    /// A frame as drizzle takes it: calibrated, white-balanced, and a
    /// mosaic left as one.
    private struct Decoded: Sendable {
        var image: Image
        var pattern: BayerPattern?
        var raw: RAWMetadata?
    }

    /// Frame `index` decoded as floats, checked against the 1× stack's
    /// grid, calibrated, then debayered unless drizzle takes it as a mosaic
    /// (`referenceBalance`: the reference's as-shot balance, see `RawColour`).
    private static func decode(_ index: Int, _ input: Input, referenceBalance: [Float]?) throws -> Decoded {
        let options = input.options
        var frame = try DecodedFrame.load(input.sources[index], maxPixels: options.maxPixels, form: .floats)
        guard frame.width == input.stack.width, frame.height == input.stack.height else {
            throw StackerError.invalidInput(path: input.names[index], reason: "frame is \(frame.width)×\(frame.height), the stack is \(input.stack.width)×\(input.stack.height)")
        }
        if let calibration = input.calibration { calibration.apply(to: &frame.image) }
        if frame.channels == 1, let pattern = options.cfa.resolve(frame.cfa) {
            var mosaic = frame.image.planes[0]
            if let m = RawColour.multipliers(options.whiteBalance, mosaic: mosaic, pattern: pattern, raw: frame.raw,
                                                reference: referenceBalance) {
                mosaic = RawColour.balanced(mosaic, pattern: pattern, multipliers: m)
            }
            return Decoded(image: Image(width: mosaic.width, height: mosaic.height, planes: [mosaic]),
                           pattern: pattern, raw: frame.raw)
        }
        return Decoded(image: frame.image, pattern: nil, raw: frame.raw)
    }
}
