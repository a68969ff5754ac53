import Synchronization

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
///    epsilon are zeroed), find the highest local maxima of its inverse and
///    refine them with a small upsampled DFT. The highest peak's height is
///    the `score`. When several peaks are comparable, the highest is kept
///    alone if it also correlates best with the reference over the whole
///    downsampled plane (`decisiveCandidates`).
/// 2. **Direct.** Robust Gauss–Newton (Lucas–Kanade, Huber IRLS) on the
///    intensities at full resolution over the whole overlap (or evenly spread
///    row bands of it, ≤ 1 MP), starting from the coarse peak, which is
///    within about a pixel (`DirectRefinement`: sparse bands first, then
///    all of them).
/// 3. **Fine** (only where needed). At full resolution, phase-correlate
///    (Hann-windowed) a central crop of the reference (≤ `refineSize`) with
///    the frame crop displaced by the rounded coarse shift, search the
///    integer peak within `f + 2` px, and refine with the upsampled
///    (matrix-multiply) DFT of Guizar-Sicairos et al. at `1/upsampleFactor`
///    px over a 1.5 px neighbourhood. It compares the candidates when the
///    coarse stage is not decisive (periodic structure, heavy occlusion),
///    and is the result where the direct refinement declines (blank or
///    one-dimensional texture, or it wanders more than 2 px off). It gets
///    within ≈ 0.1–0.5 px on real scenes: the Hann-windowed crop sees few
///    pixels, and moving objects in it pull the peak.
///
/// Frames with a fill (`FillMask`: a constant region connected to the
/// border, ≥ 1 % of the plane), or any frame when the reference has one, take
/// the masked path instead (`maskedEstimate`): masked normalised
/// cross-correlation on the search planes, then the direct refinement with
/// the fill left out; accepted only when the overlap agreement confirms.
/// Frames without a fill against a reference without one never reach it, so
/// their estimates do not depend on it.
///
/// Frame pixels the displaced crop of stage 3 needs beyond the frame edge take
/// the nearest edge value; the Hann taper keeps them from mattering, and
/// stage 2 samples only pixels inside both planes, so no clamping bias reaches
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
    /// The factor the coarse search downsamples by: a caller that makes the
    /// frame's luma can shrink it by this in the same pass (see
    /// `Plane.producing(width:height:downsampledBy:rows:)`) and hand both to
    /// `estimate(_:downsampled:)`.
    public var searchFactor: Int { factor }
    private let coarse: CorrelationStage
    private let coarseOrigin: (x: Int, y: Int)
    /// The whole reference downsampled by `factor` (candidate ranking).
    private let smallReference: Plane
    private let fine: CorrelationStage
    private let fineOrigin: (x: Int, y: Int)
    /// Final robust direct (Lucas–Kanade) refinement at full resolution.
    private let direct: DirectRefinement
    /// The reference's fill (`FillMask`), when it covers a significant share.
    private let referenceMask: FillMask?
    /// `referenceMask` shrunk to the search plane.
    private let smallReferenceMask: FillMask?
    /// `referenceMask` grown for the direct refinement (`DirectRefinement.Masks`).
    private let grownReferenceMask: [UInt8]?
    /// The masked search against the reference (`MaskedCorrelation`), made
    /// when the first frame with a fill arrives (or at once when the
    /// reference has one); `.some(nil)` when the reference has no texture.
    private let masked: Mutex<MaskedCorrelation??>

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
        smallReference = small
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
        referenceMask = FillMask.detect(reference)
        smallReferenceMask = referenceMask?.downsampled(by: factor)
        grownReferenceMask = DirectRefinement.Masks.grownReference(referenceMask)
        masked = Mutex(referenceMask == nil ? nil : .some(try MaskedCorrelation(reference: small, mask: smallReferenceMask)))
    }

    /// Measures the translation of `frame` (its luma, as floats or 8-bit
    /// samples, see `SamplePlane`) relative to the reference.
    ///
    /// Returns `(dx, dy)` with `frame(x, y) ≈ reference(x + dx, y + dy)`.
    /// A blank frame (or blank reference) returns `(0, 0)` with score 0,
    /// never accepted.
    ///
    /// Cost: one read of `frame` to shrink it (unless `downsampled` is given),
    /// two FFTs of the search plane, and a few Gauss–Newton passes over at
    /// most 1 MP of samples, so it grows slowly with the frame beyond 1 MP
    /// (figures in docs/performance.md). Accuracy: 0.004–0.02 px RMS on
    /// generated street bursts (JPEG q89, moving objects), ≤ 0.003 px on
    /// noisy band-limited test texture.
    ///
    /// - Parameter downsampled: `frame.downsampled(by: searchFactor)` when
    ///   the caller already has it (it is made here when nil or of another size).
    /// - Throws: `RegistrationError.sizeMismatch` when `frame` is not the
    ///   reference's size.
    public func estimate(_ frame: Plane, downsampled: Plane? = nil) throws -> TranslationEstimate {
        try estimate(samples: frame, downsampled: downsampled)
    }

    /// `estimate(_:downsampled:)` for a luma of 8-bit samples (`v / 255`),
    /// read as they are: a JPEG's Y plane.
    public func estimate(_ frame: BytePlane, downsampled: Plane? = nil) throws -> TranslationEstimate {
        try estimate(samples: frame, downsampled: downsampled)
    }

    /// `estimate(_:downsampled:)` for either sample type (specialised for
    /// each by the two public entries).
    private func estimate<F: SamplePlane>(samples frame: F, downsampled: Plane?) throws -> TranslationEstimate {
        guard frame.width == width, frame.height == height else {
            throw RegistrationError.sizeMismatch(
                "Frame is \(frame.width)×\(frame.height) but the reference is \(width)×\(height).")
        }
        let small: Plane
        if let given = downsampled, factor > 1, given.width == width / factor, given.height == height / factor {
            small = given
        } else {
            small = frame.shrunk(by: factor)
        }
        let frameMask = FillMask.detect(frame)
        if referenceMask != nil || frameMask != nil {
            return try maskedEstimate(frame, small: small, mask: frameMask)
        }
        let peaks = try coarse.correlateCandidates(small, at: coarseOrigin, count: Self.candidateCount,
                                                   minimumRatio: Self.candidateRatio,
                                                   upsample: min(options.upsampleFactor, 20))
        guard !peaks.isEmpty else {
            return TranslationEstimate(dx: 0, dy: 0, score: 0, isAccepted: false, overlapAgreement: 0)
        }
        let ranked = decisiveCandidates(peaks, small)
        if ranked.count == 1 {
            let (dx, dy) = try refine(frame, ranked[0])
            return verdict(small, dx: dx, dy: dy, score: ranked[0].height)
        }
        // Several comparable coarse peaks (periodic structure, heavy
        // occlusion): take each through the fine phase correlation, keep the
        // best full-resolution match, and run the costly direct refinement
        // on that one only.
        var best: (dx: Double, dy: Double, score: Double, match: Double)?
        var seen: [(Double, Double)] = []
        for peak in ranked {
            let (dx, dy) = try refineFine(frame, peak, upsample: Self.startUpsample)
            if seen.contains(where: { abs($0.0 - dx) < 0.5 && abs($0.1 - dy) < 0.5 }) { continue }
            seen.append((dx, dy))
            let m = matchScore(frame, dx: dx, dy: dy)
            if best == nil || m > best!.match { best = (dx, dy, peak.height, m) }
        }
        guard var b = best else {
            return TranslationEstimate(dx: 0, dy: 0, score: 0, isAccepted: false, overlapAgreement: 0)
        }
        (b.dx, b.dy) = try finish(frame, dx: b.dx, dy: b.dy)
        return verdict(small, dx: b.dx, dy: b.dy, score: b.score)
    }

    /// The masked path, for a frame or reference with a fill (`FillMask`):
    /// 1. the masked normalised cross-correlation over every shift of the
    ///    search planes (`MaskedCorrelation`, Padfield 2012) finds the shift
    ///    within about a search pixel;
    /// 2. the direct refinement, with every pixel that reads a fill left out,
    ///    refines it at full resolution (kept as it is where that declines);
    /// 3. the score is the masked correlation at the peak (0…1), and the
    ///    frame is accepted only when it reaches `minimumScore` **and** the
    ///    overlap agreement, measured on the blocks that read no fill,
    ///    reaches `minimumAgreement`: a match the agreement contradicts is
    ///    never accepted, however high its score.
    private func maskedEstimate<F: SamplePlane>(_ frame: F, small: Plane, mask: FillMask?) throws -> TranslationEstimate {
        let search = try masked.withLock { cached -> MaskedCorrelation? in
            if let made = cached { return made }
            let made = try MaskedCorrelation(reference: smallReference, mask: smallReferenceMask)
            cached = .some(made)
            return made
        }
        let smallMask = mask?.downsampled(by: factor)
        guard let search, let peak = try search.correlate(small, mask: smallMask) else {
            return TranslationEstimate(dx: 0, dy: 0, score: 0, isAccepted: false, overlapAgreement: 0, masked: true)
        }
        let f = Double(factor)
        var dx = peak.dx * f, dy = peak.dy * f
        if let d = direct.refine(frame, dx: dx, dy: dy, masks: .init(grownReference: grownReferenceMask, frame: mask)) {
            (dx, dy) = (d.dx, d.dy)
        }
        let score = min(1, max(0, peak.correlation))
        let agreement = OverlapAgreement.measure(frame: small, reference: smallReference, dx: dx / f, dy: dy / f,
                                                 frameMask: smallMask, referenceMask: smallReferenceMask)
        let accepted = score >= options.minimumScore && agreement >= options.minimumAgreement
        return TranslationEstimate(dx: dx, dy: dy, score: score, isAccepted: accepted, overlapAgreement: agreement,
                                   masked: true)
    }

    /// The estimate for the final shift, accepted by `options.accepts`: the
    /// overlap agreement is measured (on the downscaled planes the coarse
    /// stage already made) only when the score alone does not accept.
    private func verdict(_ small: Plane, dx: Double, dy: Double, score raw: Double) -> TranslationEstimate {
        let score = min(1, max(0, raw))
        guard score < options.minimumScore else {
            return TranslationEstimate(dx: dx, dy: dy, score: score, isAccepted: true)
        }
        let f = Double(factor)
        let agreement = OverlapAgreement.measure(frame: small, reference: smallReference, dx: dx / f, dy: dy / f)
        return TranslationEstimate(dx: dx, dy: dy, score: score,
                                   isAccepted: options.accepts(score: score, overlapAgreement: agreement),
                                   overlapAgreement: agreement)
    }

    /// `OverlapAgreement` of a score-sized plane already aligned onto the
    /// reference (shift 0), on the downscaled search planes: the homography
    /// path's agreement after warping.
    func overlapAgreement(aligned plane: Plane) -> Double {
        guard plane.width == width, plane.height == height else { return 0 }
        return OverlapAgreement.measure(frame: plane.downsampled(by: factor), reference: smallReference, dx: 0, dy: 0)
    }

    /// Coarse peaks considered at most (the highest local maxima).
    static let candidateCount = 6
    /// Coarse peaks lower than this fraction of the highest are not
    /// considered: on ordinary scenes the second local maximum is far below
    /// it, so only one candidate is refined and the cost stays that of one.
    static let candidateRatio = 0.4
    /// How far (in correlation) the highest coarse peak must lead the others
    /// on the downsampled planes to be refined alone (see `decisiveCandidates`).
    static let candidateMargin = 0.05
    /// Subpixel resolution (1/px) of the fine phase correlation when it
    /// compares candidates: they are compared, and Gauss–Newton started,
    /// from a tenth of a pixel. Only where the direct refinement declines is
    /// the fine stage run at `options.upsampleFactor` (the upsampled DFT
    /// costs in proportion to the factor).
    static let startUpsample = 10
    /// Samples (about) that `matchScore` uses: an even grid over the overlap.
    static let matchSamples = 131_072

    /// The coarse candidates worth refining at full resolution: only the
    /// highest phase-correlation peak when it also correlates best with the
    /// reference over the whole downsampled plane
    /// (`Plane.normalisedCorrelation`), by at least `candidateMargin`;
    /// otherwise all of them.
    ///
    /// Phase-correlation heights of a windowed crop are not comparable
    /// across shifts (a repeated façade element gives a peak almost as high
    /// as the true one); the plain correlation of the overlapping planes
    /// mostly is. Measured on the generated street bursts (1, 4, 12 MP):
    /// the true shift 0.80–0.86, the other peaks ≤ 0.67, so such a frame
    /// refines one candidate at full resolution, not each comparable peak.
    /// Both criteria must agree because neither decides alone: on the
    /// periodic façade test (rows 2.1 coarse px apart, near the coarse
    /// Nyquist frequency) the bilinear resampling at the true shift's
    /// fractional offset wipes out the rows, and the true candidate scores
    /// 0.78 against 0.94–0.99 for peaks a whole number of periods off.
    private func decisiveCandidates(_ peaks: [CorrelationStage.Peak], _ small: Plane) -> [CorrelationStage.Peak] {
        guard peaks.count > 1 else { return peaks }
        let matches = peaks.map { p in
            small.normalisedCorrelation(with: smallReference, dx: p.dx, dy: p.dy, samples: Self.matchSamples)
        }
        let others = matches.dropFirst().max() ?? -1
        return matches[0] >= others + Self.candidateMargin ? [peaks[0]] : peaks
    }

    /// Stages 2 and 3 from one coarse peak: the direct refinement at full
    /// resolution, straight from the coarse peak (within a pixel or so; its
    /// sparse first iterations are cheap). Where it declines from there (the
    /// coarse peak more than `DirectRefinement.slack` px off, or too little
    /// texture), the earlier path: the fine phase correlation at 1/10 px,
    /// then the direct refinement again, then the fine stage at full
    /// resolution (`finish`).
    private func refine<F: SamplePlane>(_ frame: F, _ c: CorrelationStage.Peak) throws -> (Double, Double) {
        if let d = direct.refine(frame, dx: c.dx * Double(factor), dy: c.dy * Double(factor)) { return (d.dx, d.dy) }
        let (dx, dy) = try refineFine(frame, c, upsample: Self.startUpsample)
        return try finish(frame, dx: dx, dy: dy)
    }

    /// The direct refinement from an estimate within a pixel or so; where it
    /// declines (too little overlap or texture, or it would move too far),
    /// the fine phase correlation at `options.upsampleFactor`.
    private func finish<F: SamplePlane>(_ frame: F, dx: Double, dy: Double) throws -> (Double, Double) {
        if let d = direct.refine(frame, dx: dx, dy: dy) { return (d.dx, d.dy) }
        let start = CorrelationStage.Peak(dx: dx / Double(factor), dy: dy / Double(factor), height: 0)
        return try refineFine(frame, start)
    }

    /// Stage 3 from one coarse peak: the fine phase correlation on the
    /// full-resolution crop (a few tenths of a pixel from the end result).
    private func refineFine<F: SamplePlane>(_ frame: F, _ c: CorrelationStage.Peak,
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
    func matchScore<F: SamplePlane>(_ frame: F, dx: Double, dy: Double) -> Double {
        frame.normalisedCorrelation(with: direct.reference, dx: dx, dy: dy, samples: Self.matchSamples)
    }
}

// References
// - C. D. Kuglin and D. C. Hines, "The phase correlation image alignment
//   method", Proc. IEEE Int. Conf. on Cybernetics and Society, 1975, pp. 163–165.
// - M. Guizar-Sicairos, S. T. Thurman and J. R. Fienup, "Efficient subpixel
//   image registration algorithms", Optics Letters 33(2), 156–158, 2008.
// - D. Padfield, "Masked object registration in the Fourier domain", IEEE
//   Transactions on Image Processing 21(5), 2706–2718, 2012 (the masked path).
