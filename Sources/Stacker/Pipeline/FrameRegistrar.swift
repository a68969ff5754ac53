import Registration

/// The registration model of a run behind one interface: translation
/// (phase correlation), homography or stars, built once from the reference luma.
struct FrameRegistrar: Sendable {
    /// One frame's registration: transform (frame → reference), score, remark.
    struct Estimate: Sendable {
        var transform: Transform
        var score: Double
        var note: String?
        /// Why the model itself refused the frame (nil when it did not).
        var rejection: String?
        /// Star alignment only: what the frame's stars showed.
        var stars: StarSummary?
        /// Translation and homography: the overlap agreement, measured when
        /// the score alone fell below the threshold (else nil).
        var overlapAgreement: Double?
        /// Translation and homography: the model's own acceptance (the score,
        /// or below the threshold the overlap agreement); nil for stars,
        /// whose score the pipeline compares with the threshold.
        var isAccepted: Bool?
    }

    /// Stars found and matched in one frame, with their median FWHM (px).
    struct StarSummary: Sendable {
        var found: Int
        var matched: Int
        var fwhm: Double?
    }

    private enum Model: Sendable {
        case translation(TranslationRegistrar)
        case homography(HomographyRegistrar)
        case stars(StarRegistrar)
    }
    private let model: Model

    /// The reference frame's own stars (star alignment only): all of them
    /// count as matched.
    var referenceStars: StarSummary? {
        guard case .stars(let r) = model else { return nil }
        let widths = r.referenceStars.map(\.fwhm).sorted()
        return StarSummary(found: widths.count, matched: widths.count,
                           fwhm: widths.isEmpty ? nil : widths[widths.count / 2])
    }

    /// Prepares registration against `reference` for `alignment` (not
    /// `.none`); star alignment detects stars at `starSigma` background σ.
    /// A reference whose samples span less than 1/1000 of the scale is
    /// registered rescaled (`RegistrationScale`), as is every such frame.
    init(reference unscaled: Plane, alignment: Alignment, minimumScore: Double,
         starSigma: Double = StarDetectionOptions().detectionSigma) throws {
        let reference = RegistrationScale.normalised(unscaled).plane
        switch alignment {
        case .homography:
            var options = HomographyOptions()
            options.minimumScore = minimumScore
            model = .homography(try HomographyRegistrar(reference: reference, options: options))
        case .stars, .starsAffine:
            var options = StarOptions()
            options.detection.detectionSigma = starSigma
            options.model = alignment == .starsAffine ? .affine : .similarity
            model = .stars(try StarRegistrar(reference: reference, options: options))
        case .translation, .none:
            var options = TranslationOptions()
            options.minimumScore = minimumScore
            model = .translation(try TranslationRegistrar(reference: reference, options: options))
        }
    }

    /// The factor the translation search shrinks the luma by (see
    /// `TranslationRegistrar.searchFactor`); nil for the other models.
    var searchFactor: Int? {
        if case .translation(let r) = model { return r.searchFactor }
        return nil
    }

    /// Registers one frame's luma (translation: with `downsampled`, the
    /// luma shrunk by `searchFactor`, when the caller made it; the other
    /// models take it as floats). A float luma spanning less than 1/1000 of
    /// the scale is rescaled first (`RegistrationScale`: affine, so the
    /// transform is that of the frame at any scale). Thread-safe.
    func estimate(_ given: DecodedFrame.Luma, downsampled givenSmall: Plane? = nil) throws -> Estimate {
        var luma = given, downsampled = givenSmall
        if case .floats(let plane) = given {
            let scaled = RegistrationScale.normalised(plane)
            luma = .floats(scaled.plane)
            downsampled = givenSmall.map(scaled.transform)
        }
        switch model {
        case .translation(let r):
            let e: TranslationEstimate
            switch luma {
            case .floats(let plane): e = try r.estimate(plane, downsampled: downsampled)
            case .bytes(let plane): e = try r.estimate(plane, downsampled: downsampled)
            }
            return Estimate(transform: .translation(dx: e.dx, dy: e.dy), score: e.score, note: nil,
                            rejection: e.isAccepted ? nil
                                : e.masked ? r.options.maskedRejection(score: e.score, overlapAgreement: e.overlapAgreement ?? 0)
                                : r.options.rejection(score: e.score, overlapAgreement: e.overlapAgreement),
                            overlapAgreement: e.overlapAgreement, isAccepted: e.isAccepted)
        case .homography(let r):
            let e = try r.estimate(luma.floatPlane)
            let rule = TranslationOptions(minimumScore: r.options.minimumScore, minimumAgreement: r.options.minimumAgreement)
            return Estimate(transform: e.transform, score: e.score,
                            note: e.fallbackReason.map { "homography fell back to the translation: \($0)" },
                            rejection: e.isAccepted ? nil : rule.rejection(score: e.score, overlapAgreement: e.overlapAgreement),
                            overlapAgreement: e.overlapAgreement, isAccepted: e.isAccepted)
        case .stars(let r):
            let e = try r.estimate(luma.floatPlane)
            return Estimate(transform: e.transform, score: e.score, note: nil,
                            rejection: e.isAccepted ? nil : "star alignment failed: \(e.reason ?? "no consistent star match")",
                            stars: StarSummary(found: e.starsFound, matched: e.starsMatched, fwhm: e.fwhm))
        }
    }
}
