#if canImport(Glibc)
import Glibc
#endif

/// Estimates the similarity (or affine) transform of star-field frames
/// against one reference plane by detecting and matching stars. Unlike
/// phase correlation it follows field rotation (alt-az mounts), small scale
/// changes and large shifts, and it is not pulled by gradients, trails or
/// hot pixels.
///
/// Build it once per reference (the reference stars, their triangles and a
/// proximity grid are prepared in `init`), then call `estimate(_:)` for each
/// frame; `estimate` is thread-safe and may run concurrently for different
/// frames. Frames may differ in size from the reference.
///
/// Method:
/// 1. **Detect** the frame's stars (`StarDetector`, saturated ones
///    included and flagged).
/// 2. **Candidates.** Triangles of the `triangleStars` brightest stars of
///    each list are matched by their similarity invariants and vote for
///    star pairs (`TriangleMatcher`). Saturated stars take part here
///    (which stars saturate changes with the seeing, so without them the
///    brightest lists of two frames can share no star at all in a dense
///    field); if no consensus is found, the brightest unsaturated stars
///    and then twice as many stars are tried.
/// 3. **Consensus.** Every two candidate pairs (up to `consensusPairs`
///    candidates, so at most 780 trials, deterministic) define a trial
///    similarity; the trial with the most candidates within
///    `consensusTolerance` wins, and a least-squares similarity is fitted
///    to those.
/// 4. **Refinement.** All detected stars are paired by proximity under the
///    current transform (one-to-one, `ProximityMatching`) and the model is
///    refitted on every pair, weighted by the expected centroid variance;
///    repeated with the radius shrinking to 3.5 × the median residual until
///    the pairs stop changing. Using hundreds of stars rather than the
///    handful of triangle corners is what brings the error to a few
///    hundredths of a pixel.
/// 5. **Checks.** The estimate is accepted when the scale is plausible,
///    at least `minimumMatches` stars match within `matchRadius`, and the
///    score (matched / min(frame stars, reference stars)) reaches
///    `minimumScore`.
public final class StarRegistrar: Sendable {
    /// Reference width in pixels.
    public let width: Int
    /// Reference height in pixels.
    public let height: Int
    /// The options this registrar was built with.
    public let options: StarOptions
    /// The reference's unsaturated stars, brightest first
    /// (`StarDetector.detect`); the ones transforms are fitted to.
    public let referenceStars: [Star]

    /// Smallest plane side accepted.
    public static let minimumSide = 16
    /// Candidates (most voted first) the consensus search draws pairs from.
    static let consensusPairs = 40
    /// Fewest candidates that must agree with the winning trial transform.
    static let minimumConsensus = 4
    /// Most proximity-refinement rounds.
    static let refinementRounds = 6
    /// The refinement radius never shrinks below this (px).
    static let minimumClipRadius = 0.3
    /// Systematic centroid error (px) added to the SNR-based estimate in
    /// the pair weights, so the brightest stars do not dominate the fit.
    static let positionErrorFloor = 0.02

    /// Which stars a pattern-matching attempt builds its triangles from.
    enum Selection: Sendable {
        /// The `n` brightest, saturated ones included (the steadiest list).
        case all(Int)
        /// The `n` brightest unsaturated ones.
        case unsaturated(Int)

        /// The selected positions from `stars` (brightest first).
        func points(_ stars: [Star]) -> [SIMD2<Double>] {
            switch self {
            case .all(let n): return stars.prefix(n).map { SIMD2($0.x, $0.y) }
            case .unsaturated(let n): return stars.lazy.filter { !$0.isSaturated }.prefix(n).map { SIMD2($0.x, $0.y) }
            }
        }
    }

    /// Unsaturated reference star positions (`referenceStars`).
    private let referencePoints: [SIMD2<Double>]
    /// Pattern-matching attempts, tried in order until one finds a
    /// consensus: the selection rule, the reference points it picked and
    /// their triangles.
    private let attempts: [(selection: Selection, points: [SIMD2<Double>], matcher: TriangleMatcher)]
    private let proximity: ProximityMatching

    /// Detects the reference stars and prepares matching against them.
    ///
    /// - Parameters:
    ///   - reference: the reference luma plane (0…1 for the default
    ///     saturation level).
    ///   - options: detection and matching constants.
    /// - Throws: `RegistrationError.tooSmall` when a side is below
    ///   `minimumSide`; `.tooFewStars` when fewer than
    ///   `options.minimumMatches` stars are found on the reference.
    public init(reference: Plane, options: StarOptions = .init()) throws {
        try Self.checkSize(reference, role: "Reference")
        width = reference.width
        height = reference.height
        self.options = options
        let all = StarDetector.detect(reference, options: Self.detectionOptions(options))
        referenceStars = all.filter { !$0.isSaturated }
        guard referenceStars.count >= options.minimumMatches else {
            throw RegistrationError.tooFewStars(found: referenceStars.count, needed: options.minimumMatches,
                                                detectionSigma: options.detection.detectionSigma)
        }
        referencePoints = referenceStars.map { SIMD2($0.x, $0.y) }
        let n = options.triangleStars
        var attempts: [(selection: Selection, points: [SIMD2<Double>], matcher: TriangleMatcher)] = []
        for selection in [Selection.all(n), .unsaturated(n), .all(2 * n)] {
            let points = selection.points(all)
            // An attempt identical to an earlier one on the reference side adds nothing.
            if attempts.contains(where: { $0.points == points }) { continue }
            attempts.append((selection, points, TriangleMatcher(reference: points, tolerance: options.triangleTolerance,
                                                                 maximumScaleChange: options.maximumScaleChange)))
        }
        self.attempts = attempts
        proximity = ProximityMatching(reference: referencePoints,
                                      maximumRadius: max(options.matchRadius, options.consensusTolerance))
    }

    /// Measures the transform of `frame` relative to the reference.
    ///
    /// Never throws for content: a blank, star-less or unrelated frame gives
    /// an estimate with `isAccepted == false` and a `reason`.
    ///
    /// - Throws: `RegistrationError.tooSmall` when a side of `frame` is
    ///   below `minimumSide`.
    public func estimate(_ frame: Plane) throws -> StarEstimate {
        try Self.checkSize(frame, role: "Frame")
        return estimate(stars: StarDetector.detect(frame, options: Self.detectionOptions(options)))
    }

    /// Throws `RegistrationError.tooSmall` when a side of `plane` is below
    /// `minimumSide`; `role` names the plane in the sentence.
    private static func checkSize(_ plane: Plane, role: String) throws {
        guard plane.width >= minimumSide, plane.height >= minimumSide else {
            throw RegistrationError.tooSmall(
                "\(role) plane is \(plane.width)×\(plane.height); star alignment needs at least \(minimumSide)×\(minimumSide) pixels.")
        }
    }

    /// The detection options the registrar uses: `options.detection` with
    /// `includeSaturated` on (saturated stars steady the pattern matching;
    /// they are left out of the fit, the counts and the FWHM).
    public static func detectionOptions(_ options: StarOptions) -> StarDetectionOptions {
        var d = options.detection
        d.includeSaturated = true
        return d
    }

    /// Measures the transform from a frame's stars already detected,
    /// brightest first (`StarDetector.detect` with
    /// `detectionOptions(options)`; without saturated stars it still works,
    /// but the brightest-star pattern is less steady). Thread-safe.
    public func estimate(stars given: [Star]) -> StarEstimate {
        // Stars from elsewhere could carry non-finite or absurd values.
        let all = given.filter { s in
            s.x.isFinite && s.y.isFinite && abs(s.x) < 1e7 && abs(s.y) < 1e7 && s.fwhm.isFinite && s.snr.isFinite
        }
        let stars = all.filter { !$0.isSaturated }
        let found = stars.count
        let fwhm = Self.median(stars.map(\.fwhm)), roundness = Self.median(stars.map(\.roundness))
        func rejected(_ reason: String, matched: Int = 0, rms: Double? = nil, transform: Transform = .identity) -> StarEstimate {
            let score = found == 0 ? 0 : Double(matched) / Double(min(found, referenceStars.count))
            return StarEstimate(transform: transform, score: score, isAccepted: false, starsFound: found,
                                starsMatched: matched, fwhm: fwhm, residualRMS: rms, reason: reason,
                                roundness: roundness)
        }
        guard found >= options.minimumMatches else {
            return rejected("Found \(found) star\(found == 1 ? "" : "s") in the frame; star alignment needs at least \(options.minimumMatches).")
        }
        let points = stars.map { SIMD2($0.x, $0.y) }
        var initial: Transform?
        var proposed = 0
        for attempt in attempts {
            let bright = attempt.selection.points(all)
            let candidates = attempt.matcher.candidates(frame: bright)
            proposed = max(proposed, candidates.count)
            initial = consensus(candidates, frame: bright, reference: attempt.points)
            if initial != nil { break }
        }
        guard let initial else {
            return rejected("No consistent star pattern: triangle matching proposed up to \(proposed) star pair\(proposed == 1 ? "" : "s") but no transform agreed with \(Self.minimumConsensus) of them.")
        }

        // Proximity refinement on all stars.
        var transform = initial
        var radius = options.consensusTolerance
        var previous: [Int] = []
        var rms: Double?
        for _ in 0..<Self.refinementRounds {
            let pairs = proximity.pairs(points, transform: transform, radius: radius)
            let key = pairs.map { $0.frame * referencePoints.count + $0.reference }
            let from = pairs.map { points[$0.frame] }, to = pairs.map { referencePoints[$0.reference] }
            let weights = options.weightBySNR ? pairs.map { weight(stars[$0.frame], referenceStars[$0.reference]) } : nil
            guard let fitted = StarTransformFit.fit(options.model, from: from, to: to, weights: weights) else { break }
            transform = fitted
            var squares = 0.0
            var distances = [Double]()
            distances.reserveCapacity(pairs.count)
            for i in 0..<from.count {
                let q = fitted.apply(x: from[i].x, y: from[i].y)
                let d2 = (q.x - to[i].x) * (q.x - to[i].x) + (q.y - to[i].y) * (q.y - to[i].y)
                squares += d2
                distances.append(d2.squareRoot())
            }
            rms = (squares / Double(max(1, from.count))).squareRoot()
            if key == previous { break }
            previous = key
            radius = min(options.matchRadius, max(Self.minimumClipRadius, 3.5 * (Self.median(distances) ?? 0)))
        }

        let matched = proximity.pairs(points, transform: transform, radius: options.matchRadius).count
        let score = Double(matched) / Double(min(found, referenceStars.count))
        let m = transform.matrix
        let scale = abs(m[0] * m[4] - m[1] * m[3]).squareRoot()
        guard scale >= 1 / (1 + options.maximumScaleChange), scale <= 1 + options.maximumScaleChange else {
            return rejected("The fitted transform changes the scale by \(cFormat("%.1f", (scale - 1) * 100)) %, beyond the allowed \(cFormat("%.1f", options.maximumScaleChange * 100)) %.",
                            matched: matched, rms: rms, transform: transform)
        }
        guard matched >= options.minimumMatches, score >= options.minimumScore else {
            return rejected("Only \(matched) of \(min(found, referenceStars.count)) stars matched the reference (score \(cFormat("%.2f", score)), below the minimum of \(options.minimumMatches) stars and score \(cFormat("%.2f", options.minimumScore))).",
                            matched: matched, rms: rms, transform: transform)
        }
        return StarEstimate(transform: transform, score: min(1, score), isAccepted: true, starsFound: found,
                            starsMatched: matched, fwhm: fwhm, residualRMS: rms, reason: nil,
                            roundness: roundness)
    }

    /// The similarity agreed on by most candidate pairs (each trial made
    /// from two of them), refitted by least squares on its agreeing pairs;
    /// nil when fewer than `minimumConsensus` agree.
    private func consensus(_ candidates: [(frame: Int, reference: Int, votes: Int)], frame: [SIMD2<Double>],
                           reference: [SIMD2<Double>]) -> Transform? {
        let c = Array(candidates.prefix(Self.consensusPairs))
        guard c.count >= Self.minimumConsensus else { return nil }
        let tol2 = options.consensusTolerance * options.consensusTolerance
        let low = 1 / (1 + options.maximumScaleChange), high = 1 + options.maximumScaleChange
        var best: (count: Int, error: Double, inliers: [Int])?
        for a in 0..<(c.count - 1) {
            for b in (a + 1)..<c.count {
                let fa = frame[c[a].frame], fb = frame[c[b].frame]
                let span = fb - fa
                guard (span * span).sum() >= TriangleMatcher.minimumSide * TriangleMatcher.minimumSide,
                      let trial = StarTransformFit.similarity(from: [fa, fb], to: [reference[c[a].reference], reference[c[b].reference]], weights: nil)
                else { continue }
                let s = (trial.matrix[0] * trial.matrix[0] + trial.matrix[3] * trial.matrix[3]).squareRoot()
                guard s >= low, s <= high else { continue }
                var inliers: [Int] = [], error = 0.0
                for (k, pair) in c.enumerated() {
                    let q = trial.apply(x: frame[pair.frame].x, y: frame[pair.frame].y)
                    let r = reference[pair.reference]
                    let d2 = (q.x - r.x) * (q.x - r.x) + (q.y - r.y) * (q.y - r.y)
                    if d2 <= tol2 { inliers.append(k); error += d2 }
                }
                if let current = best,
                   inliers.count < current.count || (inliers.count == current.count && error >= current.error) { continue }
                best = (inliers.count, error, inliers)
            }
        }
        guard let b = best, b.count >= Self.minimumConsensus else { return nil }
        return StarTransformFit.similarity(from: b.inliers.map { frame[c[$0].frame] },
                                           to: b.inliers.map { reference[c[$0].reference] }, weights: nil)
    }

    /// Inverse expected variance (px⁻²) of a pair's position difference:
    /// each centroid's per-axis error is ≈ √2 σ / SNR (σ = FWHM / 2.3548),
    /// plus `positionErrorFloor`.
    private func weight(_ f: Star, _ r: Star) -> Double {
        func variance(_ s: Star) -> Double {
            let sigma = s.fwhm / StarMeasurement.fwhmPerSigma
            return 2 * sigma * sigma / max(1, s.snr * s.snr)
        }
        return 1 / (variance(f) + variance(r) + Self.positionErrorFloor * Self.positionErrorFloor)
    }

    /// Median of `values` (nil when empty): the mean of the middle two for
    /// an even count.
    package static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let s = values.sorted()
        let n = s.count
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2
    }
}

// References
// - E. J. Groth, "A pattern-matching algorithm for two-dimensional
//   coordinate lists", Astronomical Journal 91, 1244–1248, 1986.
// - M. A. Fischler and R. C. Bolles, "Random sample consensus", Comm. ACM
//   24(6), 381–395, 1981.
// - S. Umeyama, "Least-squares estimation of transformation parameters
//   between two point patterns", IEEE TPAMI 13(4), 376–380, 1991.
// - M. Beroiz, J. B. Cabral and B. Sanchez, "Astroalign: a Python module for
//   astronomical image registration", Astronomy and Computing 32, 100384, 2020.
