/// Estimates the homography (8-parameter projective transform) of frames
/// against one reference plane by direct, intensity-based alignment.
///
/// Build it once per reference (the reference pyramid, its selected samples
/// and gradients, and a phase-correlation registrar are prepared in `init`),
/// then call `estimate(_:)` for each frame; `estimate` is thread-safe and may
/// run concurrently for different frames.
///
/// Method:
/// 1. **Pyramid.** Both planes are box-downsampled by 2 repeatedly until the
///    longest side is ≤ `coarsestSize`.
/// 2. **Initialisation.** Phase correlation (`TranslationRegistrar`) on the
///    first level whose longest side is ≤ 512 gives a translation and its
///    score — the same plane size the translation path scores on.
/// 3. **Refinement.** From the coarsest level to the first level with
///    longest side ≤ `finestSize`: robust inverse-compositional Gauss–Newton
///    on all 8 parameters plus a gain and an offset (`HomographyLevel`), in
///    normalised coordinates (image centre at 0, half the long side = 1),
///    with Tukey (or Huber) IRLS weights on MAD-scaled residuals so moving
///    objects and noise do not bias the fit, and bilinear sampling.
/// 4. **Checks and score.** The frame's ≤ 512 px level is warped by the
///    result and phase-correlated against the reference again: that peak
///    height is the `score`. The translation is returned instead (with
///    `fallbackReason`) when the system was singular, the corners moved more
///    than `maxCornerCorrection` of the diagonal, the score dropped below
///    half the translation's, or a residual shift above 1 px remained.
public final class HomographyRegistrar: Sendable {
    /// Reference width in pixels (frames must match).
    public let width: Int
    /// Reference height in pixels (frames must match).
    public let height: Int
    /// The options this registrar was built with.
    public let options: HomographyOptions

    /// Longest side of the level the score and the initial translation are
    /// measured on (the translation registrar's default search size).
    static let scoreSize = 512
    /// The refinement is discarded when its score is below this fraction of
    /// the translation's score.
    static let minimumScoreRatio = 0.5
    /// The refinement is discarded when the warped frame still shows a
    /// phase-correlation shift above this many score-level pixels.
    static let maximumResidualShift = 1.0

    private let coordinates: NormalisedCoordinates
    /// Prepared levels, index 0 = `finestLevel`.
    private let levels: [HomographyLevel]
    private let finestLevel: Int
    private let pyramidDepth: Int
    private let scoreLevel: Int
    private let scoreWidth: Int, scoreHeight: Int
    private let scorer: TranslationRegistrar

    /// Prepares registration against `reference` (a luma plane, any range).
    ///
    /// - Throws: `RegistrationError.tooSmall` when a side is below
    ///   `TranslationRegistrar.minimumSide`; `.fftPlanFailed` if FFTW cannot plan.
    ///   A blank (constant) reference is accepted: every frame then scores 0.
    public init(reference: Plane, options: HomographyOptions = .init()) throws {
        let minimum = TranslationRegistrar.minimumSide
        guard reference.width >= minimum, reference.height >= minimum else {
            throw RegistrationError.tooSmall(
                "Reference plane is \(reference.width)×\(reference.height); homography registration needs at least \(minimum)×\(minimum) pixels.")
        }
        width = reference.width
        height = reference.height
        self.options = options
        coordinates = NormalisedCoordinates(width: width, height: height)

        var pyramid = [reference]
        func canHalve(_ p: Plane) -> Bool { min(p.width, p.height) / 2 >= minimum }
        let stopSize = min(options.coarsestSize, Self.scoreSize)
        while let last = pyramid.last, canHalve(last), max(last.width, last.height) > stopSize {
            pyramid.append(last.downsampled(by: 2))
        }
        let score = pyramid.firstIndex { max($0.width, $0.height) <= Self.scoreSize } ?? (pyramid.count - 1)
        // The coarsest refinement level: first with longest side ≤ coarsestSize (or the last).
        let coarsest = pyramid.firstIndex { max($0.width, $0.height) <= options.coarsestSize } ?? (pyramid.count - 1)
        let finest = min(coarsest, pyramid.firstIndex { max($0.width, $0.height) <= options.finestSize } ?? coarsest)
        finestLevel = finest
        pyramidDepth = max(coarsest, score)
        scoreLevel = score
        scoreWidth = pyramid[score].width
        scoreHeight = pyramid[score].height
        let coords = coordinates
        levels = (finest...coarsest).map { k in
            HomographyLevel(plane: pyramid[k], factor: 1 << k, coordinates: coords, maxSamples: options.maxSamplesPerLevel)
        }
        scorer = try TranslationRegistrar(reference: pyramid[score],
                                          options: TranslationOptions(maxSearchSize: Self.scoreSize,
                                                                      minimumScore: options.minimumScore))
    }

    /// Measures the homography of `frame` relative to the reference.
    ///
    /// The result's `transform` maps frame pixel coordinates to reference
    /// pixel coordinates (full resolution). A blank frame (or blank
    /// reference) returns the identity with score 0, never accepted.
    ///
    /// Measured (`HomographyTests`, release, 2 cores, one estimate at a
    /// time): ≈ 45 ms per 640×480 frame (≈ 330 ms in a debug build) and
    /// ≈ 60–80 ms per 4000×3000 frame (refined at 2000×1500; `init` takes
    /// 0.3–0.7 s there). Mapped-corner error on the synthetic scenes
    /// (±12 px perspective jitter per 640 px, noise σ 0.01, 8-bit, moving
    /// objects, gain/offset change): RMS 0.019 px, max 0.067 px over 8
    /// homographies at 640×480; RMS 0.024 px, max 0.038 px over 3 at
    /// 4000×3000.
    ///
    /// - Throws: `RegistrationError.sizeMismatch` when `frame` is not the
    ///   reference's size; `.fftPlanFailed` if FFTW cannot plan.
    public func estimate(_ frame: Plane) throws -> HomographyEstimate {
        guard frame.width == width, frame.height == height else {
            throw RegistrationError.sizeMismatch(
                "Frame is \(frame.width)×\(frame.height) but the reference is \(width)×\(height).")
        }
        var pyramid = [frame]
        pyramid.reserveCapacity(pyramidDepth + 1)
        while pyramid.count <= pyramidDepth, let last = pyramid.last { pyramid.append(last.downsampled(by: 2)) }

        // 1. Translation by phase correlation on the score level.
        let t = try scorer.estimate(pyramid[scoreLevel])
        let f = Double(1 << scoreLevel)
        let translation = Transform.translation(dx: t.dx * f, dy: t.dy * f)
        func fallback(_ reason: String, iterations: Int = 0) -> HomographyEstimate {
            HomographyEstimate(transform: translation, score: t.score, isAccepted: t.score >= options.minimumScore,
                               iterations: iterations, residualRMS: nil, fallbackReason: reason)
        }
        guard t.score > 0 else { return fallback("The frame or the reference is blank; nothing to refine.") }

        // 2. Coarse-to-fine refinement in normalised coordinates.
        let coords = coordinates
        guard let start = translation.inverse else { return fallback("The translation is not invertible.") }
        var warp = coords.normalised(start)              // reference → frame, normalised
        var gain = 1.0, offset = 0.0, iterations = 0
        var rms: Double?
        let halfW = Double(width - 1) / 2 / coords.scale, halfH = Double(height - 1) / 2 / coords.scale
        let corners = [(-halfW, -halfH), (halfW, -halfH), (halfW, halfH), (-halfW, halfH)]
        for index in levels.indices.reversed() {
            let level = levels[index]
            let threshold = options.convergenceThreshold * Double(level.factor) / coords.scale
            guard let outcome = level.refine(frame: pyramid[finestLevel + index], warp: &warp, gain: &gain, offset: &offset,
                                             loss: options.robustLoss, maxIterations: options.maxIterationsPerLevel,
                                             threshold: threshold, corners: corners) else {
                return fallback("The refinement became singular on the 1/\(level.factor) level.", iterations: iterations)
            }
            iterations += outcome.iterations
            rms = outcome.residualRMS
        }

        // 3. Sanity checks.
        guard let inverseWarp = warp.inverse else {
            return fallback("The refined homography is singular.", iterations: iterations)
        }
        let result = coords.pixels(inverseWarp)
        guard result.matrix.allSatisfy(\.isFinite) else {
            return fallback("The refined homography is not finite.", iterations: iterations)
        }
        let diagonal = (Double(width * width + height * height)).squareRoot()
        var correction = 0.0
        for (cx, cy) in [(0.0, 0.0), (Double(width - 1), 0), (Double(width - 1), Double(height - 1)), (0, Double(height - 1))] {
            let a = result.apply(x: cx, y: cy), b = translation.apply(x: cx, y: cy)
            let w = result.matrix[6] * cx + result.matrix[7] * cy + result.matrix[8]
            guard w > 0 else { return fallback("The refined homography folds the image over.", iterations: iterations) }
            correction = max(correction, ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot())
        }
        guard correction.isFinite, correction <= options.maxCornerCorrection * diagonal else {
            let moved = correction.isFinite ? "\((correction * 10).rounded() / 10) px" : "without bound"
            return fallback("The refinement diverged (a corner moved \(moved) from the translation).",
                            iterations: iterations)
        }

        // 4. Score: phase correlation of the warped score level against the reference.
        let l = coords.levelMatrix(factor: 1 << scoreLevel)
        guard let lInverse = l.inverse else { return fallback("Internal level geometry is singular.", iterations: iterations) }
        let levelTransform = l.concatenating(inverseWarp).concatenating(lInverse)
        var warped = Warper.warp([pyramid[scoreLevel]], by: levelTransform, width: scoreWidth, height: scoreHeight,
                                 interpolation: .bicubic)
        guard var plane = warped.planes.first else { return fallback("Warping failed.", iterations: iterations) }
        Self.fillUncovered(&plane, coverage: warped.coverage)
        warped.planes = []
        let check = try scorer.estimate(plane)
        let shift = (check.dx * check.dx + check.dy * check.dy).squareRoot()
        guard check.score >= Self.minimumScoreRatio * t.score else {
            return fallback("The refined alignment scored \(check.score), below the translation's \(t.score).",
                            iterations: iterations)
        }
        guard shift <= Self.maximumResidualShift else {
            return fallback("The refined alignment left a residual shift of \(shift) px.", iterations: iterations)
        }
        let score = min(1, max(0, check.score))
        return HomographyEstimate(transform: result, score: score, isAccepted: score >= options.minimumScore,
                                  iterations: iterations, residualRMS: rms, fallbackReason: nil)
    }

    /// Replaces uncovered pixels by the mean of the covered ones, so the
    /// coverage edge adds no step to the phase correlation.
    static func fillUncovered(_ plane: inout Plane, coverage: Plane) {
        var sum = 0.0, n = 0
        for i in 0..<plane.count where coverage.pixels[i] > 0 { sum += Double(plane.pixels[i]); n += 1 }
        let fill = Float(n > 0 ? sum / Double(n) : 0)
        for i in 0..<plane.count where coverage.pixels[i] <= 0 { plane.pixels[i] = fill }
    }
}

// References
// - S. Baker and I. Matthews, "Lucas-Kanade 20 years on: a unifying
//   framework", International Journal of Computer Vision 56(3), 221–255, 2004.
// - G. D. Evangelidis and E. Z. Psarakis, "Parametric image alignment using
//   enhanced correlation coefficient maximization", IEEE Trans. Pattern
//   Analysis and Machine Intelligence 30(10), 1858–1865, 2008.
// - J. R. Bergen, P. Anandan, K. J. Hanna and R. Hingorani, "Hierarchical
//   model-based motion estimation", ECCV 1992 (coarse-to-fine pyramid).
// - R. Hartley and A. Zisserman, Multiple View Geometry in Computer Vision,
//   2nd ed., Cambridge University Press, 2004 (coordinate normalisation).
// - C. D. Kuglin and D. C. Hines, "The phase correlation image alignment
//   method", Proc. IEEE Int. Conf. on Cybernetics and Society, 1975.
