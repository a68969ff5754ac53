import Registration

/// The registration model of a run behind one interface: translation
/// (phase correlation) or homography, built once from the reference luma.
struct FrameRegistrar: Sendable {
    /// One frame's registration: transform (frame → reference), score, remark.
    struct Estimate: Sendable {
        var transform: Transform
        var score: Double
        var note: String?
    }

    private enum Model: Sendable {
        case translation(TranslationRegistrar)
        case homography(HomographyRegistrar)
    }
    private let model: Model

    /// Prepares registration against `reference` for `alignment` (not `.none`).
    init(reference: Plane, alignment: Alignment, minimumScore: Double) throws {
        switch alignment {
        case .homography:
            var options = HomographyOptions()
            options.minimumScore = minimumScore
            model = .homography(try HomographyRegistrar(reference: reference, options: options))
        case .translation, .none:
            var options = TranslationOptions()
            options.minimumScore = minimumScore
            model = .translation(try TranslationRegistrar(reference: reference, options: options))
        }
    }

    /// Registers one frame's luma. Thread-safe.
    func estimate(_ luma: Plane) throws -> Estimate {
        switch model {
        case .translation(let r):
            let e = try r.estimate(luma)
            return Estimate(transform: .translation(dx: e.dx, dy: e.dy), score: e.score, note: nil)
        case .homography(let r):
            let e = try r.estimate(luma)
            return Estimate(transform: e.transform, score: e.score,
                            note: e.fallbackReason.map { "homography fell back to the translation: \($0)" })
        }
    }
}
