import Registration
import Synchronization

/// The per-frame work of a run, done on the workers: decode → calibrate →
/// measure → register → deliver (warped into a robust kernel's store, or
/// handed to the consumer for the average's fold). Thread-safe: each index
/// is prepared once, on any thread.
final class FramePreparer: Sendable {
    /// Gains from normalisation, one per channel.
    typealias Gains = [(gain: Float, offset: Float)]

    private let sources: [FrameSource]
    /// How messages name each frame.
    let names: [String]
    private let options: StackOptions
    private let plan: StackPlan
    private let calibration: Calibration?
    private let registration: Latch<RegistrationSetup>
    private let early: EarlyDecode?
    /// The decoded, calibrated reference, taken by the worker that prepares it.
    private let referenceFrame: Mutex<DecodedFrame?>
    private let referenceBackground: [RobustStatistics]
    /// For a file named again, the index of its first mention.
    private let duplicates: [Int: Int]
    /// A robust kernel's stores (nil for the average).
    private let stores: (main: any RobustFrameStore, chroma: (any RobustFrameStore)?)?
    private let clock: StageClock
    /// Frames whose samples all lie within 1/1000 of the scale: index, peak.
    private let tinyFrames = Mutex<[(index: Int, peak: Float)]>([])
    /// The reference's ICC profile as its file has it (nil: none, sRGB).
    private let referenceProfile: [UInt8]?
    /// The profile frames are converted into: the reference's when lcms2
    /// reads it as RGB, else nil (sRGB).
    private let colourTarget: [UInt8]?
    /// Frames whose profile lcms2 cannot read as RGB (taken as sRGB).
    private let unreadableProfiles = Mutex<[Int]>([])
    /// The reference's as-shot white balance, which every raw takes (`RawColour`).
    private let referenceBalance: [Float]?

    init(sources: [FrameSource], names: [String], options: StackOptions, plan: StackPlan,
         calibration: Calibration?, registration: Latch<RegistrationSetup>, early: EarlyDecode?,
         reference: consuming DecodedFrame, duplicates: [Int: Int],
         stores: (main: any RobustFrameStore, chroma: (any RobustFrameStore)?)?, clock: StageClock) {
        self.sources = sources
        self.names = names
        self.options = options
        self.plan = plan
        self.calibration = calibration
        self.registration = registration
        self.early = early
        referenceBackground = options.normalization != .none ? reference.image.backgroundStatistics : []
        referenceProfile = reference.iccProfile
        referenceBalance = reference.raw?.whiteBalance
        let readable = reference.iccProfile.map(LittleCMS.isRGBProfile) ?? true
        colourTarget = readable ? reference.iccProfile : nil
        if !readable, reference.channels == 3 { unreadableProfiles.withLock { $0.append(options.referenceIndex) } }
        referenceFrame = Mutex(reference)
        self.duplicates = duplicates
        self.stores = stores
        self.clock = clock
    }

    /// The frame at `index` made ready for the kernel, or why it cannot be.
    /// A frame that fails is skipped (a record saying why) under
    /// `skipBadFrames`, unless it is the reference.
    func prepare(_ index: Int) -> Result<PreparedFrame, StackerError> {
        if let original = duplicates[index] {
            return .success(PreparedFrame(report: FrameReport(
                path: names[index], reason: "the same file as frame \(original) (\(names[original])); used once")))
        }
        if let excluded = options.excludedFrames[index] {
            return .success(PreparedFrame(report: FrameReport(path: names[index], transform: options.givenTransforms?[index] ?? .identity,
                                                              reason: excluded)))
        }
        do {
            return .success(try register(try decoded(index), index: index))
        } catch {
            let e = (error as? StackerError) ?? .unreadable(path: names[index], reason: "\(error)")
            if options.skipBadFrames, index != options.referenceIndex, e != .interrupted {
                return .success(PreparedFrame(report: FrameReport(path: names[index], reason: e.reason)))
            }
            return .failure(e)
        }
    }

    /// One warning line for the frames whose samples use less than 1/1000 of
    /// the scale, or nil (see `tinyScaleWarning`).
    var tinyScaleWarning: String? {
        StackPipeline.tinyScaleWarning(tinyFrames.withLock { $0 }, names: names)
    }

    /// One warning line per frame whose ICC profile lcms2 cannot read as
    /// an RGB profile, in input order; such a frame is taken as sRGB.
    var colourWarnings: [String] {
        unreadableProfiles.withLock { $0 }.sorted().map {
            "\(names[$0]): its ICC profile cannot be read as an RGB profile; taken as sRGB"
        }
    }

    /// Frame `index` decoded (or taken from the early decode, or the
    /// reference already decoded), checked against the reference's grid,
    /// and calibrated.
    private func decoded(_ index: Int) throws -> DecodedFrame {
        // Each index is prepared once, so each of these is taken once.
        let calibrated = index == options.referenceIndex ? referenceFrame.withLock { $0.take() } : nil
        let decodedEarly = index == early?.index ? early?.take(as: plan.form) : nil
        if let decodedEarly { clock.add(decodedEarly.seconds, to: .decode) }
        var frame: DecodedFrame
        if let calibrated {
            frame = calibrated
        } else if let ready = decodedEarly?.frame {
            frame = ready
        } else {
            frame = try clock.time(.decode) {
                try DecodedFrame.load(sources[index], maxPixels: options.maxPixels, form: plan.form)
            }
        }
        let r = plan.reference, referenceName = names[options.referenceIndex]
        guard frame.width == r.width, frame.height == r.height else {
            throw StackerError.invalidInput(path: names[index], reason: "frame is \(frame.width)×\(frame.height), the reference \(referenceName) is \(r.width)×\(r.height)")
        }
        if case .floats(let image) = frame.pixels, let peak = RegistrationScale.tinyPeak(image) {
            tinyFrames.withLock { $0.append((index, peak)) }
        }
        if calibrated == nil {
            // A CFA mosaic is calibrated as a mosaic, then debayered.
            if let calibration {
                if let masters = calibration.channels, frame.channels != masters {
                    throw StackerError.invalidInput(path: names[index], reason: "frame has \(frame.channels) channel(s), the calibration masters have \(masters)")
                }
                clock.time(.calibrate) { calibration.apply(to: &frame.image) }
            }
            clock.time(.calibrate) {
                frame.debayer(options.cfa, method: options.debayer, whiteBalance: options.whiteBalance,
                              referenceBalance: referenceBalance)
            }
        }
        guard frame.channels == r.channels else {
            throw StackerError.invalidInput(path: names[index], reason: "frame has \(frame.channels) channel(s), the reference \(referenceName) has \(r.channels)")
        }
        if calibrated == nil { try matchColour(&frame, index: index) }
        return frame
    }

    /// Converts a colour frame whose ICC profile differs (byte for byte)
    /// from the reference's into the reference's (a missing or unreadable
    /// profile counts as sRGB); refuses it instead when colour conversion
    /// is off. Gray frames are left alone.
    private func matchColour(_ frame: inout DecodedFrame, index: Int) throws {
        guard index != options.referenceIndex, frame.channels == 3, frame.iccProfile != referenceProfile else { return }
        guard options.convertColour else {
            throw StackerError.invalidInput(path: names[index], reason: "its colour profile differs from the reference's (\(names[options.referenceIndex])) and colour conversion is off (--no-colour-convert)")
        }
        var source = frame.iccProfile
        if let profile = source, !LittleCMS.isRGBProfile(profile) {
            unreadableProfiles.withLock { $0.append(index) }
            source = nil
        }
        guard source != colourTarget else { return }
        let converted = clock.time(.decode) { frame.convertColour(from: source, to: colourTarget) }
        frame.colourConverted = converted
        if converted { frame.iccProfile = colourTarget }  // what its pixels are in now
    }

    /// Measures and registers `frame` (frame `index`) and delivers it when
    /// it is accepted; a rejected frame comes back as its record alone.
    private func register(_ frame: DecodedFrame, index: Int) throws -> PreparedFrame {
        // The registrar is built by the calling thread while frames decode.
        // The reference needs it only for its noise (weights) or its stars,
        // so in a plain run its worker goes straight on to the next frame.
        let isReference = index == options.referenceIndex
        let setup = !isReference || plan.weightsByNoise || options.alignment.usesStars ? try registration.wait() : nil
        var luma = LumaPlanes(frame: frame, searchFactor: setup?.registrar?.searchFactor)
        var report = measured(frame, index: index, luma: &luma, referenceSigma: setup?.referenceSigma ?? 0)
        if frame.colourConverted { report.colourConverted = true }
        report.storedRange = frame.storedRange
        var gains = options.normalization == .none ? [] : options.normalization.coefficients(
            frame: isReference ? referenceBackground : frame.image.backgroundStatistics, reference: referenceBackground)
        let transform: Transform
        var field: DisplacementField?
        if let given = options.givenTransforms?[index], given != .identity {
            report.transform = given
            report.score = 1
            transform = given
        } else if let registrar = setup?.registrar, !isReference {
            guard try estimate(with: registrar, luma: &luma, into: &report, field: &field) else {
                return PreparedFrame(report: report)
            }
            transform = report.transform
        } else {
            if isReference, let stars = setup?.registrar?.referenceStars { report.record(stars) }
            report.score = 1
            transform = .identity
        }
        if options.weighting.usesStars {
            report.weight = starWeight(report, reference: setup?.registrar?.referenceStars)
        }
        var chromaGains: Gains = []
        if let exposure = setup?.exposure, !isReference,
           let line = clock.time(.register, { exposure.measure(luma: luma.planes.luma, transform: transform, field: field) }) {
            report.exposureGain = line.gain
            report.exposureOffset = line.offset
            let ycbcr = plan.combination.ycbcrFactor != nil
            gains = ExposureMatch.corrections(gain: line.gain, offset: line.offset, channels: ycbcr ? 1 : frame.channels)
            if ycbcr { chromaGains = ExposureMatch.chromaCorrections(gain: line.gain) }
        }
        report.used = true
        return try deliver(index, report: report, frame: frame, transform: transform, field: field,
                           gains: gains, chromaGains: chromaGains)
    }

    /// The frame's record with what is measured on its luma: background and
    /// noise (astro runs), weight (noise weighting).
    private func measured(_ frame: DecodedFrame, index: Int, luma: inout LumaPlanes,
                          referenceSigma: Double) -> FrameReport {
        var report = FrameReport(path: names[index])
        if plan.measuresBackground {
            report.background = RobustStatistics.of(luma.floats).median
            if !plan.weightsByNoise { report.noiseSigma = estimateNoiseSigma(luma.floats) }
        }
        if plan.weightsByNoise {
            let sigma = index == options.referenceIndex ? referenceSigma : estimateNoiseSigma(luma.floats)
            report.noiseSigma = sigma
            // Inverse noise variance, relative to the reference (weight 1).
            report.weight = sigma > 0 && referenceSigma > 0 ? (referenceSigma * referenceSigma) / (sigma * sigma) : 1
        }
        return report
    }

    /// The weight of a registered frame under `--weights fwhm|stars`,
    /// relative to the reference's stars (`StarQualityWeight`).
    private func starWeight(_ report: FrameReport, reference: StarSummary?) -> Double {
        switch options.weighting {
        case .fwhm: return StarQualityWeight.fwhm(report.fwhm, reference: reference?.fwhm)
        case .stars: return StarQualityWeight.stars(report.starsFound, reference: reference?.found)
        case .equal, .auto: return report.weight
        }
    }

    /// Registers the frame and records the estimate in `report`; false
    /// (with `report.reason` set) when the frame is rejected: by the model's
    /// own verdict (translation, homography), else by the score threshold.
    /// A local alignment's field goes to `field`.
    private func estimate(with registrar: FrameRegistrar, luma: inout LumaPlanes,
                          into report: inout FrameReport, field: inout DisplacementField?) throws -> Bool {
        let name = report.path
        let estimate = try clock.time(.register) {
            try registrationFailure(naming: name) {
                // The translation and the homography read a Y plane's bytes as they are; the other models take floats.
                try registrar.estimate(registrar.readsByteLuma ? luma.planes.luma : .floats(luma.floats),
                                       downsampled: luma.planes.small)
            }
        }
        report.transform = estimate.transform
        report.score = estimate.score.isFinite ? estimate.score : 0
        report.alignmentNote = estimate.note
        report.overlapAgreement = estimate.overlapAgreement
        report.localField = estimate.field?.summary
        field = estimate.field
        if let stars = estimate.stars { report.record(stars) }
        if let rejection = estimate.rejection {
            report.reason = rejection
            return false
        }
        guard estimate.isAccepted ?? (report.score >= options.minimumScore) else {
            report.reason = "registration score \(format(report.score)) is below the threshold \(format(options.minimumScore))"
            return false
        }
        return true
    }

    /// Hands a registered frame on: warped into the store (robust modes), or
    /// as it is to the consumer for the fold (average); as Y and Cb, Cr when
    /// the kernel works on Y, Cb, Cr. `gains` apply to the frame (or Y),
    /// `chromaGains` to Cb, Cr.
    private func deliver(_ index: Int, report: FrameReport, frame decoded: DecodedFrame, transform: Transform,
                         field: DisplacementField?, gains: Gains, chromaGains: Gains) throws -> PreparedFrame {
        let (width, height) = (plan.reference.width, plan.reference.height)
        let frame: RowWarper?, chroma: RowWarper?
        if let factor = plan.combination.ycbcrFactor {
            (frame, chroma) = decoded.ycbcrWarpers(by: transform, field: field, width: width, height: height,
                                                   factor: factor, interpolation: options.interpolation)
        } else {
            frame = decoded.rowWarper(by: transform, field: field, width: width, height: height,
                                      interpolation: options.interpolation)
            chroma = nil
        }
        guard let stores else {
            return PreparedFrame(report: report, frame: frame, chroma: chroma, gains: gains, chromaGains: chromaGains)
        }
        try clock.time(.warp) {
            if let frame { try stores.main.store(frame: index, warping: frame, gains: gains) }
            if let chroma, let store = stores.chroma { try store.store(frame: index, warping: chroma, gains: chromaGains) }
        }
        return PreparedFrame(report: report)
    }
}

/// A frame's luma, made once and only when needed (the reference of a
/// plain run needs none): measured, weighted and registered on the same
/// plane, and the translation search's shrunk copy comes from the same pass.
struct LumaPlanes {
    private let frame: DecodedFrame
    private let searchFactor: Int?

    init(frame: DecodedFrame, searchFactor: Int?) {
        self.frame = frame
        self.searchFactor = searchFactor
    }

    /// The luma as registration reads it, and its copy shrunk by the search factor.
    lazy var planes: (luma: DecodedFrame.Luma, small: Plane?) = frame.luma(downsampledBy: searchFactor ?? 1)
    /// The luma as floats.
    lazy var floats: Plane = planes.luma.floatPlane
}

extension FrameReport {
    /// Records what the frame's stars showed.
    mutating func record(_ stars: StarSummary) {
        starsFound = stars.found
        starsMatched = stars.matched
        fwhm = stars.fwhm
        roundness = stars.roundness
    }
}

extension StackPlan.Combination {
    /// The chroma factor when the kernel works on Y, Cb, Cr; else nil.
    var ycbcrFactor: Int? {
        switch self {
        case .average(let factor): return factor
        case .robust(_, _, _, let factor): return factor
        }
    }
}

/// A score or threshold printed with three decimals.
func format(_ x: Double) -> String {
    let scaled = (x * 1000).rounded() / 1000
    return "\(scaled)"
}
