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
/// 3. **Refinement.** On the coarsest level, the finest (the first with
///    longest side ≤ `finestSize`) and every `levelStride`-th level above the
///    finest, coarse to fine: robust inverse-compositional Gauss–Newton
///    on all 8 parameters plus a gain and an offset (`HomographyLevel`), in
///    normalised coordinates (image centre at 0, half the long side = 1),
///    with Tukey (or Huber) IRLS weights on MAD-scaled residuals so moving
///    objects and noise do not bias the fit, and bilinear sampling of at
///    most `maxSamplesPerLevel` strongest-gradient reference pixels spread
///    over a grid. Both
///    reference and frame levels are smoothed by a [1 2 1]² binomial first
///    (sharp edges otherwise make the bilinear linearisation poor: on the
///    street bench bursts this cut the corner error 2.5× and the iterations
///    about 3×); the frame's blur is folded into its sampling
///    (`SmoothedBilinear`), so only the sample points of a level are read
///    and the cost of a level does not grow with its pixel count beyond the
///    shrink that makes it (the frame's levels are box-shrunk from it
///    straight to the finest one needed, and only the refined ones and the
///    score level are made). Coarse levels stop at a 10× looser threshold
///    (≤ 10 iterations); the finest allows `finestIterations` when the level
///    above it converged.
/// 4. **Checks and score.** The frame's ≤ 512 px level is warped by the
///    result (bicubic, in two passes where the result admits them) and
///    phase-correlated against the reference again: that peak
///    height is the `score` (only the registrar's coarse stage runs there:
///    same peak height; its fine and direct stages are not needed); below
///    `minimumScore`, the overlap agreement of that warped level too (see
///    `TranslationOptions.accepts`). The
///    translation is returned instead (with `fallbackReason`) when the
///    system was singular, the corners moved more than `maxCornerCorrection`
///    of the diagonal, the score dropped below half the translation's, or a
///    residual shift above 1 px remained.
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
    /// Prepared levels, finest first (`HomographyOptions.levelStride`).
    private let levels: [HomographyLevel]
    /// The frame pyramid levels `estimate` makes (≥ 1, ascending): the
    /// refined ones and the score level.
    private let frameLevels: [Int]
    private let scoreLevel: Int
    private let scoreWidth: Int, scoreHeight: Int
    private let scorer: TranslationRegistrar
    /// The scorer's coarse phase-correlation stage alone (same factor, crop
    /// and window, so the same peak height), for the post-refinement score:
    /// only the height is wanted there, so its fine and direct stages never run.
    private let scoreStage: CorrelationStage
    private let scoreFactor: Int
    private let scoreOrigin: (x: Int, y: Int)

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
        let refined = Self.refinedLevels(finest: finest, coarsest: coarsest, stride: options.levelStride)
        frameLevels = Set(refined.filter { $0 >= 1 } + (score >= 1 ? [score] : [])).sorted()
        scoreLevel = score
        scoreWidth = pyramid[score].width
        scoreHeight = pyramid[score].height
        let coords = coordinates
        levels = refined.map { k in
            HomographyLevel(plane: pyramid[k], factor: 1 << k, coordinates: coords, maxSamples: options.maxSamplesPerLevel)
        }
        let sp = pyramid[score]
        let sf = max(1, min((max(sp.width, sp.height) + Self.scoreSize - 1) / Self.scoreSize,
                            min(sp.width, sp.height) / TranslationRegistrar.minimumSide))
        let small = sp.downsampled(by: sf)
        let cw = CorrelationStage.fastSize(atMost: small.width), ch = CorrelationStage.fastSize(atMost: small.height)
        scoreFactor = sf
        scoreOrigin = ((small.width - cw) / 2, (small.height - ch) / 2)
        scoreStage = try CorrelationStage(reference: small.cropped(x: scoreOrigin.x, y: scoreOrigin.y, width: cw, height: ch))
        scorer = try TranslationRegistrar(reference: pyramid[score],
                                          options: TranslationOptions(maxSearchSize: Self.scoreSize,
                                                                      minimumScore: options.minimumScore,
                                                                      minimumAgreement: options.minimumAgreement))
    }

    /// The pyramid levels refined, finest first: `finest`, every `stride`-th
    /// level above it, and `coarsest`.
    static func refinedLevels(finest: Int, coarsest: Int, stride: Int) -> [Int] {
        var levels = Array(Swift.stride(from: finest, through: coarsest, by: max(1, stride)))
        if levels.last != coarsest { levels.append(coarsest) }
        return levels
    }

    /// Measures the homography of `frame` relative to the reference.
    ///
    /// The result's `transform` maps frame pixel coordinates to reference
    /// pixel coordinates (full resolution). A blank frame (or blank
    /// reference) returns the identity with score 0, never accepted.
    ///
    /// Accuracy (`stack-bench --cases homography`: street truth warped by
    /// ±12 px corner jitter, noise σ 0.01, 8-bit): corner RMS 0.022 px at
    /// 1600×1200 and 0.039 px at 4000×3000 refined at full resolution;
    /// 640×480 test scenes (`HomographyTests`, moving objects, gain/offset
    /// change): corner RMS 0.030 px, max 0.085 px. Its time per frame, and
    /// OpenCV's ECC on the same frames, are in docs/performance.md.
    ///
    /// - Throws: `RegistrationError.sizeMismatch` when `frame` is not the
    ///   reference's size; `.fftPlanFailed` if FFTW cannot plan.
    public func estimate(_ frame: Plane) throws -> HomographyEstimate {
        try estimate(samples: frame)
    }

    /// `estimate(_:)` for a luma of 8-bit samples (`v / 255`), read as they
    /// are (a JPEG's Y plane): no float copy of the frame is made, since the
    /// full-resolution level is only read at the refinement's sample points.
    public func estimate(_ frame: BytePlane) throws -> HomographyEstimate {
        try estimate(samples: frame)
    }

    /// `estimate(_:)` for either sample type. Level 0 stays the caller's
    /// plane (read through `SmoothedBilinear` at the samples only); the
    /// coarser levels are box-shrunk floats, made from it once.
    private func estimate<Frame: SamplePlane>(samples frame: Frame) throws -> HomographyEstimate {
        guard frame.width == width, frame.height == height else {
            throw RegistrationError.sizeMismatch(
                "Frame is \(frame.width)×\(frame.height) but the reference is \(width)×\(height).")
        }
        // pyramid[k] is level k for k in `frameLevels` (level 0 is `frame`).
        var pyramid = [Int: Plane]()
        var made: (level: Int, plane: Plane)?
        for k in frameLevels {
            let plane = made.map { m in m.plane.downsampled(by: 1 << (k - m.level)) } ?? frame.shrunk(by: 1 << k)
            pyramid[k] = plane
            made = (k, plane)
        }
        let scorePlane = pyramid[scoreLevel] ?? frame.floatPlane

        // 1. Translation by phase correlation on the score level.
        let t = try scorer.estimate(scorePlane)
        let f = Double(1 << scoreLevel)
        let translation = Transform.translation(dx: t.dx * f, dy: t.dy * f)
        func fallback(_ reason: String, iterations: Int = 0) -> HomographyEstimate {
            HomographyEstimate(transform: translation, score: t.score, isAccepted: t.isAccepted,
                               iterations: iterations, residualRMS: nil, fallbackReason: reason,
                               overlapAgreement: t.overlapAgreement)
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
        var aboveConverged = true
        for index in levels.indices.reversed() {
            let level = levels[index]
            // Coarser levels only need to land within the next level's basin;
            // the finest starts converged but for its own detail, unless the
            // level above it stopped at its cap.
            let isFinest = index == 0
            let threshold = options.convergenceThreshold * (isFinest ? 1 : 10) * Double(level.factor) / coords.scale
            let maxIterations = !isFinest ? min(10, options.maxIterationsPerLevel)
                : aboveConverged && levels.count > 1 ? min(options.finestIterations, options.maxIterationsPerLevel)
                : options.maxIterationsPerLevel
            let refined = level.factor == 1
                ? level.refine(frame: frame, warp: &warp, gain: &gain, offset: &offset, loss: options.robustLoss,
                               maxIterations: maxIterations, threshold: threshold, corners: corners)
                : level.refine(frame: pyramid[level.factor.trailingZeroBitCount] ?? frame.shrunk(by: level.factor),
                               warp: &warp, gain: &gain, offset: &offset, loss: options.robustLoss,
                               maxIterations: maxIterations, threshold: threshold, corners: corners)
            guard let outcome = refined else {
                return fallback("The refinement became singular on the 1/\(level.factor) level.", iterations: iterations)
            }
            iterations += outcome.iterations
            rms = outcome.residualRMS
            aboveConverged = outcome.converged
        }

        // 3. Sanity checks.
        guard let inverseWarp = warp.inverse else {
            return fallback("The refined homography is singular.", iterations: iterations)
        }
        let result = coords.pixels(inverseWarp)
        if let reason = implausibility(of: result, against: translation) {
            return fallback(reason, iterations: iterations)
        }

        // 4. Score: phase correlation of the warped score level against the reference.
        let l = coords.levelMatrix(factor: 1 << scoreLevel)
        guard let lInverse = l.inverse else { return fallback("Internal level geometry is singular.", iterations: iterations) }
        let levelTransform = l.concatenating(inverseWarp).concatenating(lInverse)
        // In two passes where the transform admits them (near-identity, as
        // accepted refinements are): an eighth of the general warp's CPU
        // (`stack-bench warp-kernel`).
        guard let rows = RowWarper([scorePlane], by: levelTransform, width: scoreWidth, height: scoreHeight,
                                   interpolation: .bicubic) else {
            return fallback("Warping failed.", iterations: iterations)
        }
        var warped = Warper.warp(rows.resamplingInTwoPasses())
        guard var plane = warped.planes.first else { return fallback("Warping failed.", iterations: iterations) }
        Self.fillUncovered(&plane, coverage: warped.coverage)
        warped.planes = []
        let check = try coarsePeak(plane)
        let shift = (check.dx * check.dx + check.dy * check.dy).squareRoot()
        guard check.score >= Self.minimumScoreRatio * t.score else {
            return fallback("The refined alignment scored \(check.score), below the translation's \(t.score).",
                            iterations: iterations)
        }
        guard shift <= Self.maximumResidualShift else {
            return fallback("The refined alignment left a residual shift of \(shift) px.", iterations: iterations)
        }
        let score = min(1, max(0, check.score))
        // As the translation path: the agreement only where the score alone
        // does not accept, on the warped plane (uncovered pixels are flat,
        // so their blocks never confirm).
        let agreement = score < options.minimumScore ? scorer.overlapAgreement(aligned: plane) : nil
        return HomographyEstimate(transform: result, score: score,
                                  isAccepted: scorer.options.accepts(score: score, overlapAgreement: agreement),
                                  iterations: iterations, residualRMS: rms, fallbackReason: nil,
                                  overlapAgreement: agreement)
    }

    /// Why the refined `result` (frame → reference, pixels) cannot be
    /// right, or nil: not finite, folding the image over (a corner behind
    /// the horizon), or a corner moved from `translation` by more than
    /// `maxCornerCorrection` of the diagonal.
    private func implausibility(of result: Transform, against translation: Transform) -> String? {
        guard result.matrix.allSatisfy(\.isFinite) else { return "The refined homography is not finite." }
        let diagonal = (Double(width * width + height * height)).squareRoot()
        var correction = 0.0
        for (cx, cy) in [(0.0, 0.0), (Double(width - 1), 0), (Double(width - 1), Double(height - 1)), (0, Double(height - 1))] {
            let a = result.apply(x: cx, y: cy), b = translation.apply(x: cx, y: cy)
            let w = result.matrix[6] * cx + result.matrix[7] * cy + result.matrix[8]
            guard w > 0 else { return "The refined homography folds the image over." }
            correction = max(correction, ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot())
        }
        guard correction.isFinite, correction <= options.maxCornerCorrection * diagonal else {
            let moved = correction.isFinite ? "\((correction * 10).rounded() / 10) px" : "without bound"
            return "The refinement diverged (a corner moved \(moved) from the translation)."
        }
        return nil
    }

    /// Stage 1 of `TranslationRegistrar.estimate` on a score-level plane: the
    /// same peak height (`score`) and the coarse shift in score-level pixels
    /// (1/20 px upsampled); score 0 and no shift for a blank plane.
    private func coarsePeak(_ plane: Plane) throws -> (score: Double, dx: Double, dy: Double) {
        let small = plane.downsampled(by: scoreFactor)
        let patch = small.cropped(x: scoreOrigin.x, y: scoreOrigin.y, width: scoreStage.cols, height: scoreStage.rows)
        guard let peak = try scoreStage.correlate(patch, searchRadius: nil, upsample: 20) else { return (0, 0, 0) }
        return (min(1, max(0, peak.height)), peak.dx * Double(scoreFactor), peak.dy * Double(scoreFactor))
    }

    /// Replaces uncovered pixels by the mean of the covered ones, so the
    /// coverage edge adds no step to the phase correlation.
    /// The same sum in the same order as a loop over the arrays, read
    /// through pointers (it ran on every pixel of the score level per frame).
    static func fillUncovered(_ plane: inout Plane, coverage: Plane) {
        precondition(coverage.count == plane.count, "fillUncovered: coverage of \(coverage.count) pixels for \(plane.count)")
        coverage.pixels.withUnsafeBufferPointer { c in
            plane.pixels.withUnsafeMutableBufferPointer { p in
                var sum = 0.0, n = 0
                for i in 0..<p.count where c[i] > 0 { sum += Double(p[i]); n += 1 }
                let fill = Float(n > 0 ? sum / Double(n) : 0)
                for i in 0..<p.count where c[i] <= 0 { p[i] = fill }
            }
        }
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
