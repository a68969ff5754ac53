/// Estimates the translation of frames against one reference plane by phase
/// correlation, coarse-to-fine.
///
/// Build it once per reference (the reference's windowed spectra are
/// computed in `init`), then call `estimate(_:)` for each frame; `estimate`
/// is thread-safe and may run concurrently for different frames.
///
/// Method:
/// 1. **Coarse.** Box-downscale by an integer factor `f` so the longest side
///    is ≤ `maxSearchSize`, take the central crop of FFT-friendly size
///    (factors 2, 3, 5), remove the weighted mean, apply a Hann window, form
///    the normalised cross-power spectrum `R·F̄ / |R·F̄|` (bins below an
///    epsilon are zeroed), find the integer peak of its inverse and refine it
///    with a small upsampled DFT. The peak height is the `score`.
/// 2. **Fine.** At full resolution, cross-correlate (Hann-windowed, no
///    spectral whitening, which measured ~20× less noise-sensitive) a central
///    crop of the reference (≤ `refineSize`) with the frame crop displaced by
///    the rounded coarse shift, search the integer peak within `f + 2` px,
///    and refine with the upsampled (matrix-multiply) DFT of Guizar-Sicairos
///    et al. at `1/upsampleFactor` px over a 1.5 px neighbourhood. If the
///    rounded shift changed, repeat once so the residual is below half a pixel.
///    This gets within ≈ 0.1–0.5 px on real scenes: the Hann-windowed crop
///    sees few pixels, and moving objects in it pull the peak.
/// 3. **Direct.** Robust Gauss–Newton (Lucas–Kanade, Huber IRLS) on the
///    intensities at full resolution over the whole overlap (or evenly spread
///    row bands of it, ≤ 1 MP), starting from stage 2 (`DirectRefinement`).
///    If it fails (blank or one-dimensional texture, or it wanders more than
///    2 px off), the stage-2 shift stands.
///
/// Frame pixels the displaced crop of stage 2 needs beyond the frame edge take
/// the nearest edge value; the Hann taper keeps them from mattering, and
/// stage 3 samples only pixels inside both planes, so no clamping bias reaches
/// the result.
public final class TranslationRegistrar: Sendable {
    /// Reference width in pixels (frames must match).
    public let width: Int
    /// Reference height in pixels (frames must match).
    public let height: Int
    /// The options this registrar was built with.
    public let options: TranslationOptions

    /// Smallest plane side accepted: below it a Hann-windowed correlation
    /// has too few samples to mean anything.
    public static let minimumSide = 16

    private let factor: Int
    private let coarse: CorrelationStage
    private let coarseOrigin: (x: Int, y: Int)
    private let fine: CorrelationStage
    private let fineOrigin: (x: Int, y: Int)
    /// Final robust direct (Lucas–Kanade) refinement at full resolution.
    private let direct: DirectRefinement

    /// Prepares registration against `reference` (a luma plane, any range).
    ///
    /// - Throws: `RegistrationError.tooSmall` when a side is below
    ///   `minimumSide`; `.fftPlanFailed` if FFTW cannot plan.
    ///   A blank (constant) reference is accepted: every frame then scores 0.
    public init(reference: Plane, options: TranslationOptions = .init()) throws {
        guard reference.width >= Self.minimumSide, reference.height >= Self.minimumSide else {
            throw RegistrationError.tooSmall(
                "Reference plane is \(reference.width)×\(reference.height); registration needs at least \(Self.minimumSide)×\(Self.minimumSide) pixels.")
        }
        width = reference.width
        height = reference.height
        self.options = options
        let longest = max(width, height)
        // Never shrink the short side below `minimumSide` (extreme aspect ratios).
        factor = max(1, min((longest + options.maxSearchSize - 1) / options.maxSearchSize,
                            min(width, height) / Self.minimumSide))

        let small = reference.downsampled(by: factor)
        let cw = CorrelationStage.fastSize(atMost: small.width)
        let ch = CorrelationStage.fastSize(atMost: small.height)
        coarseOrigin = ((small.width - cw) / 2, (small.height - ch) / 2)
        coarse = try CorrelationStage(reference: small.cropped(x: coarseOrigin.x, y: coarseOrigin.y, width: cw, height: ch))

        // The fine crop leaves a margin (≥ 10 % each side) so a shifted
        // frame's crop usually stays inside the frame.
        let fw = CorrelationStage.fastSize(atMost: max(8, min(options.refineSize, width * 4 / 5)))
        let fh = CorrelationStage.fastSize(atMost: max(8, min(options.refineSize, height * 4 / 5)))
        fineOrigin = ((width - fw) / 2, (height - fh) / 2)
        fine = try CorrelationStage(reference: reference.cropped(x: fineOrigin.x, y: fineOrigin.y, width: fw, height: fh))
        direct = DirectRefinement(reference: reference)
    }

    /// Measures the translation of `frame` relative to the reference.
    ///
    /// Returns `(dx, dy)` with `frame(x, y) ≈ reference(x + dx, y + dy)`.
    /// A blank frame (or blank reference) returns `(0, 0)` with score 0,
    /// never accepted.
    ///
    /// Measured (release, 2 cores): ≈ 27–29 ms for 4000×3000 (coarse search
    /// 500×375, refinement crop 512×512, direct refinement ≈ 4–6 ms over
    /// 1 MP); 0.004–0.010 px RMS error on generated street bursts (JPEG q90,
    /// moving objects), ≤ 0.003 px on noisy band-limited test texture.
    ///
    /// - Throws: `RegistrationError.sizeMismatch` when `frame` is not the
    ///   reference's size.
    public func estimate(_ frame: Plane) throws -> TranslationEstimate {
        guard frame.width == width, frame.height == height else {
            throw RegistrationError.sizeMismatch(
                "Frame is \(frame.width)×\(frame.height) but the reference is \(width)×\(height).")
        }
        let small = frame.downsampled(by: factor)
        let peaks = try coarse.correlateCandidates(small, at: coarseOrigin, count: Self.candidateCount,
                                                   minimumRatio: Self.candidateRatio,
                                                   upsample: min(options.upsampleFactor, 20))
        guard !peaks.isEmpty else {
            return TranslationEstimate(dx: 0, dy: 0, score: 0, isAccepted: false)
        }
        if peaks.count == 1 {
            let (dx, dy) = try refine(frame, peaks[0])
            let score = min(1, max(0, peaks[0].height))
            return TranslationEstimate(dx: dx, dy: dy, score: score, isAccepted: score >= options.minimumScore)
        }
        // Several comparable coarse peaks (periodic structure, heavy
        // occlusion): take each through the fine phase correlation, keep the
        // best full-resolution match, and run the costly direct refinement
        // on that one only.
        var best: (dx: Double, dy: Double, score: Double, match: Double)?
        var seen: [(Double, Double)] = []
        for peak in peaks {
            let (dx, dy) = try refineFine(frame, peak, upsample: Self.startUpsample)
            if seen.contains(where: { abs($0.0 - dx) < 0.5 && abs($0.1 - dy) < 0.5 }) { continue }
            seen.append((dx, dy))
            let m = matchScore(frame, dx: dx, dy: dy)
            if best == nil || m > best!.match { best = (dx, dy, peak.height, m) }
        }
        guard var b = best else { return TranslationEstimate(dx: 0, dy: 0, score: 0, isAccepted: false) }
        (b.dx, b.dy) = try finish(frame, dx: b.dx, dy: b.dy)
        let score = min(1, max(0, b.score))
        return TranslationEstimate(dx: b.dx, dy: b.dy, score: score, isAccepted: score >= options.minimumScore)
    }

    /// Coarse peaks considered at most (the highest local maxima).
    static let candidateCount = 6
    /// Coarse peaks lower than this fraction of the highest are not
    /// considered: on ordinary scenes the second local maximum is far below
    /// it, so only one candidate is refined and the cost stays that of one.
    static let candidateRatio = 0.4
    /// Subpixel resolution (1/px) of the fine phase correlation when the
    /// direct refinement follows: candidates are compared, and Gauss–Newton
    /// started, from a tenth of a pixel. Only where the direct refinement
    /// declines is the fine stage repeated at `options.upsampleFactor` (the
    /// upsampled DFT costs in proportion to the factor).
    static let startUpsample = 10
    /// Samples (about) that `matchScore` uses: an even grid over the overlap.
    static let matchSamples = 131_072

    /// Stages 2 and 3 from one coarse peak: the full-resolution shift.
    private func refine(_ frame: Plane, _ c: CorrelationStage.Peak) throws -> (Double, Double) {
        let (dx, dy) = try refineFine(frame, c, upsample: Self.startUpsample)
        return try finish(frame, dx: dx, dy: dy)
    }

    /// Stage 3 from a fine estimate good to a tenth of a pixel: the direct
    /// refinement; where it declines (too little overlap or texture, or it
    /// would move too far), the fine phase correlation again at
    /// `options.upsampleFactor`.
    private func finish(_ frame: Plane, dx: Double, dy: Double) throws -> (Double, Double) {
        if let d = direct.refine(frame, dx: dx, dy: dy) { return (d.dx, d.dy) }
        let start = CorrelationStage.Peak(dx: dx / Double(factor), dy: dy / Double(factor), height: 0)
        return try refineFine(frame, start)
    }

    /// Stage 2 from one coarse peak: the fine phase correlation on the
    /// full-resolution crop (a few hundredths of a pixel from the end result).
    private func refineFine(_ frame: Plane, _ c: CorrelationStage.Peak,
                            upsample: Int? = nil) throws -> (Double, Double) {
        var dx = c.dx * Double(factor), dy = c.dy * Double(factor)

        // Fine refinement around the rounded coarse shift.
        var radius = factor / 2 + 2
        for _ in 0..<2 {
            let ox = Int(dx.rounded()), oy = Int(dy.rounded())
            let patch = frame.cropped(x: fineOrigin.x - ox, y: fineOrigin.y - oy, width: fine.cols, height: fine.rows)
            guard let p = try fine.correlate(patch, searchRadius: radius, upsample: upsample ?? options.upsampleFactor,
                                             exponent: options.refineExponent) else { break }
            dx = Double(ox) + p.dx
            dy = Double(oy) + p.dy
            if Int(dx.rounded()) == ox && Int(dy.rounded()) == oy { break }
            radius = 2
        }
        return (dx, dy)
    }

    /// Zero-mean normalised cross-correlation of `frame(x, y)` with
    /// `reference(x + dx, y + dy)` at full resolution (see
    /// `Plane.normalisedCorrelation`), on about `matchSamples` points.
    func matchScore(_ frame: Plane, dx: Double, dy: Double) -> Double {
        frame.normalisedCorrelation(with: direct.reference, dx: dx, dy: dy, samples: Self.matchSamples)
    }
}

// References
// - C. D. Kuglin and D. C. Hines, "The phase correlation image alignment
//   method", Proc. IEEE Int. Conf. on Cybernetics and Society, 1975, pp. 163–165.
// - M. Guizar-Sicairos, S. T. Thurman and J. R. Fienup, "Efficient subpixel
//   image registration algorithms", Optics Letters 33(2), 156–158, 2008.
