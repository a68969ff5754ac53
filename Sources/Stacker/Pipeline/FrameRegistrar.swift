import Registration

/// A frame's registration as the pipeline records it, whatever the model.
struct RegistrationEstimate: Sendable {
    /// Frame → reference.
    var transform: Transform
    /// The model's confidence, 0…1.
    var score: Double
    /// The model's own verdict (translation, homography: the score, or below
    /// the threshold the overlap agreement); nil when the pipeline compares
    /// the score with the threshold itself (stars).
    var isAccepted: Bool?
    /// Why the model refused the frame; nil when it did not.
    var rejection: String?
    /// The overlap agreement, when it was measured (translation, homography).
    var overlapAgreement: Double?
    /// A remark, e.g. why a homography fell back to the translation.
    var note: String?
    /// What the frame's stars showed (star models).
    var stars: StarSummary?
    /// The residual displacements after `transform` (local alignment).
    var field: DisplacementField?
}

/// Stars found and matched in one frame, with their median FWHM (px) and
/// median roundness (minor / major axis).
struct StarSummary: Sendable {
    var found: Int
    var matched: Int
    var fwhm: Double?
    var roundness: Double?
}

/// One registration model behind the pipeline's single interface: built
/// once from the reference luma, then asked for each frame's estimate.
/// Conformances must be thread-safe.
protocol RegistrationModel: Sendable {
    /// The factor the model searches a shrunk luma at (translation), else nil.
    var lumaSearchFactor: Int? { get }
    /// The reference's own stars (star models), else nil.
    var referenceStarSummary: StarSummary? { get }
    /// True when the model reads a luma of bytes (a JPEG's Y) as it is;
    /// false when it wants floats (the caller converts once and keeps them).
    var readsByteLuma: Bool { get }
    /// The estimate for a frame's luma (with `downsampled`, the luma shrunk
    /// by `searchFactor`, when the caller made it).
    func estimate(_ luma: DecodedFrame.Luma, downsampled: Plane?) throws -> RegistrationEstimate
}

/// The run's registration model, chosen by `alignment` and built from the
/// reference luma: translation (phase correlation), homography or stars.
struct FrameRegistrar: Sendable {
    private let model: any RegistrationModel

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
            model = try HomographyRegistrar(reference: reference, options: options)
        case .local:
            var options = HomographyOptions()
            options.minimumScore = minimumScore
            model = try LocalRegistration(reference: reference, homography: options)
        case .stars, .starsAffine:
            var options = StarOptions()
            options.detection.detectionSigma = starSigma
            options.model = alignment == .starsAffine ? .affine : .similarity
            model = try StarRegistrar(reference: reference, options: options)
        case .translation, .none:
            var options = TranslationOptions()
            options.minimumScore = minimumScore
            model = try TranslationRegistrar(reference: reference, options: options)
        }
    }

    /// See `RegistrationModel.lumaSearchFactor`.
    var searchFactor: Int? { model.lumaSearchFactor }
    /// See `RegistrationModel.referenceStarSummary`.
    var referenceStars: StarSummary? { model.referenceStarSummary }
    /// See `RegistrationModel.readsByteLuma`.
    var readsByteLuma: Bool { model.readsByteLuma }

    /// Registers one frame's luma. A float luma spanning less than 1/1000 of
    /// the scale is rescaled first (`RegistrationScale`: affine, so the
    /// transform is that of the frame at any scale). Thread-safe.
    func estimate(_ given: DecodedFrame.Luma, downsampled givenSmall: Plane? = nil) throws -> RegistrationEstimate {
        guard case .floats(let plane) = given else { return try model.estimate(given, downsampled: givenSmall) }
        let scaled = RegistrationScale.normalised(plane)
        return try model.estimate(.floats(scaled.plane), downsampled: givenSmall.map(scaled.transform))
    }
}

extension RegistrationModel {
    var readsByteLuma: Bool { false }
}

extension TranslationRegistrar: RegistrationModel {
    var lumaSearchFactor: Int? { searchFactor }
    var referenceStarSummary: StarSummary? { nil }
    var readsByteLuma: Bool { true }

    func estimate(_ luma: DecodedFrame.Luma, downsampled: Plane?) throws -> RegistrationEstimate {
        let e: TranslationEstimate
        switch luma {
        case .floats(let plane): e = try estimate(plane, downsampled: downsampled)
        case .bytes(let plane): e = try estimate(plane, downsampled: downsampled)
        }
        let rejection = e.isAccepted ? nil
            : e.masked ? options.maskedRejection(score: e.score, overlapAgreement: e.overlapAgreement ?? 0)
            : options.rejection(score: e.score, overlapAgreement: e.overlapAgreement)
        return RegistrationEstimate(transform: .translation(dx: e.dx, dy: e.dy), score: e.score, isAccepted: e.isAccepted,
                                    rejection: rejection, overlapAgreement: e.overlapAgreement)
    }
}

extension HomographyRegistrar: RegistrationModel {
    var lumaSearchFactor: Int? { nil }
    var referenceStarSummary: StarSummary? { nil }
    var readsByteLuma: Bool { true }

    func estimate(_ luma: DecodedFrame.Luma, downsampled: Plane?) throws -> RegistrationEstimate {
        let e: HomographyEstimate
        switch luma {
        case .floats(let plane): e = try estimate(plane)
        case .bytes(let plane): e = try estimate(plane)
        }
        let rule = TranslationOptions(minimumScore: options.minimumScore, minimumAgreement: options.minimumAgreement)
        return RegistrationEstimate(transform: e.transform, score: e.score, isAccepted: e.isAccepted,
                                    rejection: e.isAccepted ? nil : rule.rejection(score: e.score, overlapAgreement: e.overlapAgreement),
                                    overlapAgreement: e.overlapAgreement,
                                    note: e.fallbackReason.map { "homography fell back to the translation: \($0)" })
    }
}

extension StarRegistrar: RegistrationModel {
    var lumaSearchFactor: Int? { nil }

    /// The reference's own stars: all of them count as matched. FWHM and
    /// roundness are medians taken as the other frames' are.
    var referenceStarSummary: StarSummary? {
        StarSummary(found: referenceStars.count, matched: referenceStars.count,
                    fwhm: Self.median(referenceStars.map(\.fwhm)),
                    roundness: Self.median(referenceStars.map(\.roundness)))
    }

    func estimate(_ luma: DecodedFrame.Luma, downsampled: Plane?) throws -> RegistrationEstimate {
        let e = try estimate(luma.floatPlane)
        return RegistrationEstimate(transform: e.transform, score: e.score,
                                    rejection: e.isAccepted ? nil : "star alignment failed: \(e.reason ?? "no consistent star match")",
                                    stars: StarSummary(found: e.starsFound, matched: e.starsMatched, fwhm: e.fwhm,
                                                       roundness: e.roundness))
    }
}
