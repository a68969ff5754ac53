import Registration

/// One frame made ready for the kernel, handed from a worker to the
/// consumer: its record and, for the average, the frame itself, warped
/// band by band as it is folded (a robust kernel has already stored it).
struct PreparedFrame: Sendable {
    var report: FrameReport
    /// The frame (RGB, grey, or Y when the average folds Y, Cb, Cr).
    var frame: RowWarper?
    /// Cb and Cr when the average folds Y, Cb, Cr.
    var chroma: RowWarper?
    /// Per-channel gain and offset from normalisation or exposure matching
    /// (empty for none).
    var gains: [(gain: Float, offset: Float)] = []
    /// Cb, Cr gain and offset when the average folds Y, Cb, Cr (empty for none).
    var chromaGains: [(gain: Float, offset: Float)] = []
}

/// What the workers need once a frame is decoded: the registrar (nil when
/// nothing is registered) and the reference's noise σ (0 unless frames are
/// weighted by noise). Built on the calling thread while the workers decode
/// their first frames.
struct RegistrationSetup: Sendable {
    var registrar: FrameRegistrar?
    var referenceSigma: Double
    /// The reference's luma points when the run matches exposure
    /// (`StackOptions.matchesExposure`), else nil.
    var exposure: ExposureMatch?

    /// The setup for `referenceLuma` under `options` and `plan`.
    init(referenceLuma: Plane, options: StackOptions, plan: StackPlan, referenceName: String,
         clock: StageClock) throws {
        referenceSigma = plan.weightsByNoise ? estimateNoiseSigma(referenceLuma) : 0
        exposure = options.matchesExposure ? ExposureMatch(referenceLuma: referenceLuma) : nil
        guard options.alignment != .none && options.givenTransforms == nil else {
            registrar = nil
            return
        }
        registrar = try clock.time(.register) {
            try registrationFailure(naming: referenceName) {
                try FrameRegistrar(reference: referenceLuma, alignment: options.alignment,
                                   minimumScore: options.minimumScore, starSigma: options.starDetectionSigma)
            }
        }
    }
}

/// Runs `body`, turning a registration failure into a `StackerError` about
/// the frame `name`. Too few reference stars is advised in the CLI's words:
/// the options that choose another reference or lower the threshold.
func registrationFailure<T>(naming name: String, _ body: () throws -> T) throws -> T {
    do { return try body() } catch RegistrationError.tooFewStars(let found, let needed, let sigma) {
        throw StackerError.stackingFailed(
            path: name,
            reason: "registration failed: found \(found) star\(found == 1 ? "" : "s") in the reference frame; "
                + "star alignment needs at least \(needed). Choose a reference with more stars (--reference), "
                + "or lower the detection threshold (--star-sigma, now \(JSONText.number(sigma)))")
    } catch let e as RegistrationError {
        throw StackerError.stackingFailed(path: name, reason: "registration failed: \(e.description)")
    }
}
