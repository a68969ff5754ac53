public import Registration

/// The resampling kernel frames are warped with (`StackOptions.interpolation`),
/// named here so that clients of Stacker need not import Registration.
public typealias Interpolation = Registration.Interpolation

/// How frames are combined, per output pixel, over the frames that cover it.
public enum StackMode: String, Sendable, CaseIterable {
    /// Weighted mean, folded one frame at a time (streaming).
    case average
    /// Per-pixel median.
    case median
    /// Mean of the densest cluster of samples.
    case mode
    /// Weighted mean after iterative κ·σ rejection around the median.
    case sigmaClip = "sigma-clip"
}

/// How frames are aligned to the reference.
public enum Alignment: String, Sendable, CaseIterable {
    /// Subpixel phase-correlation translation.
    case translation
    /// A full perspective transform (8 parameters), for handheld bursts:
    /// the translation, then direct robust refinement on a pyramid.
    case homography
    /// The homography, then a smooth field of per-tile residual
    /// displacements (`TileAligner`), for bursts with parallax: near things
    /// that move against far ones as the hand moves.
    case local
    /// A similarity transform (rotation, scale, translation) from matched
    /// stars, for astro frames with field rotation (alt-az mounts): stars
    /// detected on the luma, matched by triangle invariants, fitted on
    /// every matched star (`StarRegistrar`).
    case stars
    /// As `stars`, with a general affine fit (6 parameters): also absorbs
    /// shear and anisotropic scale (differential refraction, tilt).
    case starsAffine = "stars-affine"
    /// No alignment: frames are stacked as they are.
    case none

    /// True for the star-matching models (`stars`, `stars-affine`).
    public var usesStars: Bool { self == .stars || self == .starsAffine }

    /// True for the handheld models (`homography`, `local`), whose runs
    /// match each frame's exposure to the reference's unless told otherwise
    /// (`StackOptions.matchExposure`): a phone's auto-exposure drifts
    /// within a burst.
    public var matchesExposureByDefault: Bool { self == .homography || self == .local }
}

/// How frames are weighted in the average and sigma-clip kernels.
public enum FrameWeighting: String, Sendable, CaseIterable {
    /// Every frame counts the same.
    case equal
    /// Inverse noise variance, estimated per frame (the reference gets weight 1).
    case auto
    /// (FWHM_ref / FWHM)² from the median star FWHM (`StarQualityWeight.fwhm`);
    /// needs star alignment.
    case fwhm
    /// Stars detected over the reference's (`StarQualityWeight.stars`);
    /// needs star alignment.
    case stars

    /// True for the weights measured on stars (`fwhm`, `stars`).
    public var usesStars: Bool { self == .fwhm || self == .stars }
}

/// Everything that shapes one stacking run. Defaults follow DESIGN.md.
public struct StackOptions: Sendable {
    /// The combination kernel (default `.average`).
    public var mode: StackMode = .average
    /// The alignment model (default `.translation`).
    public var alignment: Alignment = .translation
    /// Frame weights for average and sigma-clip (default `.equal`).
    public var weighting: FrameWeighting = .equal
    /// Sigma-clip rejection thresholds below and above the median, in robust σ.
    public var kappaLow: Float = 3
    /// See `kappaLow`.
    public var kappaHigh: Float = 3
    /// Sigma-clip iterations at most.
    public var clipIterations: Int = 5
    /// A rejection algorithm (`--reject`): when set, the stack is the
    /// weighted mean of the samples it keeps, whatever `mode` says.
    /// `.sigma` is the same kernel as `mode = .sigmaClip` (the same bytes).
    public var rejection: RejectionAlgorithm?
    /// Whether the run makes a rejection map (`StackResult.rejectionMap`):
    /// needs `rejection` or `mode = .sigmaClip`. The frames are then stacked
    /// as RGB (not Y, Cb, Cr), warped as they are stored, and reduced one
    /// pixel at a time.
    public var makesRejectionMap = false
    /// Keep only the best frames by quality (`--keep`), nil = all. With the
    /// average, the frames are then kept in a frame store (as the robust
    /// modes do) so the dropped ones can leave it before the combination.
    public var keep: FrameSelection?
    /// What `keep` ranks frames by (`--keep-by`); nil = the registration
    /// score, or with star alignment the median star FWHM. The star
    /// measures (`fwhm`, `roundness`, `stars`) need star alignment without
    /// given transforms; `background` needs star alignment, calibration or
    /// normalisation (see `starMeasureConflict(transformsGiven:)`).
    public var keepBy: FrameSelection.Measure?
    /// `--robust`, with `--mode average`: the motion-robust average
    /// (`RobustKernel.tukeyMean`), from a frame store like the median.
    public var robustAverage = false
    /// Mode kernel: samples closer than this (colour distance, 0…1 scale) form one cluster.
    public var modeTolerance: Float = 0.06
    /// Drizzle onto a finer grid (`--scale`, `--pixfrac`, `--drizzle-kernel`):
    /// after the 1× stack, its frames are dropped through its transforms
    /// onto a grid `scale` times finer (`DrizzlePass`); nil (the default)
    /// stacks at 1×. Works with the average, sigma-clip and the rejection
    /// family, whose rejection is decided against the 1× stack, and the
    /// robust average, whose samples are weighed against it (`DrizzleRobustness`).
    public var drizzle: DrizzleOptions?
    /// Known transforms (frame → reference), one per input frame, used
    /// instead of registration when set (for example true shifts from a
    /// scene's truth file). Their score is reported as 1.
    public var givenTransforms: [Transform]?
    /// Frames left out of the stack, by index, with the reason their record
    /// gives: a report's unused frames when its transforms are reused
    /// (`TransformsFile`). The reference cannot be left out.
    public var excludedFrames: [Int: String] = [:]
    /// Only these frames (indices into the input list) are registered and
    /// combined; the others are left out with a record saying so. The
    /// reference fixes the grid wherever it is, and is combined only when
    /// the range holds it. nil: every frame. A shard's slice of the burst
    /// (`stack --frames a:b`, `register(_:options:progress:)`, `PartialSums`).
    public var frameRange: Range<Int>?
    /// What the run makes: the image, or only the records, or partial sums.
    var product: StackProduct = .image
    /// The form frames are decoded in, when not the one `mode` and its
    /// kernels would pick (`StackPlan.referenceForm`). `register` keeps the
    /// form of the mode it was given, so that its transforms are measured
    /// on the very luma a stack in that mode registers.
    var decodeForm: DecodedFrame.Form?
    /// Only band `band` of `of` of the output's rows is wanted
    /// (`RowBand.rows`): a robust kernel reduces only what it needs.
    var rowBand: (band: Int, of: Int)?
    /// Index of the reference frame in the input list (default 0).
    public var referenceIndex: Int = 0
    /// Choose the reference automatically (the sharpest frame), ignoring `referenceIndex`.
    public var automaticReference = false
    /// Star alignment's detection threshold: a star must stand this many
    /// local background σ above the sky (`StarDetectionOptions.detectionSigma`,
    /// `--star-sigma` in the CLI; default 5). Lower it for faint or few stars,
    /// raise it to ignore noise on a bright sky. Must be positive and finite.
    public var starDetectionSigma: Double = StarDetectionOptions().detectionSigma
    /// Frames whose registration score is below this are not stacked.
    public var minimumScore: Double = TranslationOptions.defaultMinimumScore
    /// The transfer curve outputs are encoded with; nil (the default)
    /// chooses per output (`TransferCurve.automatic`: sRGB for a camera raw
    /// stack written as JPEG, PNG or HEIC, else the values as stacked).
    public var transfer: TransferCurve?
    /// How the stack's values map to the output's range (default
    /// `.native`: as stacked; `.data` stretches the result's own range).
    public var outputScale: OutputScale = .native
    /// Interpolator used to warp frames onto the reference grid.
    public var interpolation: Interpolation = .lanczos3
    /// Worker threads for decoding, registration and warping (≥ 1).
    public var threads: Int = defaultThreadCount
    /// Skip frames that cannot be read (with a warning and `used: false`)
    /// instead of failing the run. The reference frame must always be readable.
    public var skipBadFrames = false
    /// Refuse images with more pixels than this, before allocating them.
    public var maxPixels: Int = ImageFile.defaultMaxPixels
    /// Memory the robust kernels' frame store may use before spilling to disk, in bytes.
    public var memoryLimit: Int = 2 << 30
    /// Folder for the frame store's temporary file.
    public var temporaryDirectory: FilePath = "."
    /// Bits per sample the robust kernels' frame store keeps; `nil` (the
    /// default) chooses: 8 when the reference file has 8 bits per sample, no
    /// calibration is applied and `outputBitDepth` is at most 8 (or nil);
    /// floats when it has float samples or calibration is applied; else 16.
    public var storeDepth: FrameStore.SampleDepth?
    /// The bits per sample the result will be written at, when the caller
    /// knows it (the CLI does: `--depth`, or the output format's default,
    /// see `ImageFormat.stackDepth`); nil counts as 8. A deeper output keeps
    /// 8-bit frames at 16 bits in the robust kernels' store, so the finer
    /// steps of their median or mean reach the file.
    public var outputBitDepth: Int?
    /// Whether the average, median and sigma-clip take JPEG frames as their
    /// own Y, Cb, Cr planes (default true): TurboJPEG skips its colour
    /// conversion and chroma upsampling, 4:2:0 chroma is warped and stacked
    /// at its own resolution, and the result is turned into RGB once
    /// (`YCbCr.rgb`, Lanczos-3 chroma). False stacks RGB. Needs a 4:4:4, or
    /// 4:2:0 with an even size, YCbCr reference, and no calibration or
    /// normalisation; the mode clusters RGB colours and always stacks RGB.
    public var stackInYCbCr = true
    /// Bias, dark and flat frames applied to every light before registration.
    public var calibration = CalibrationOptions()
    /// `--match-exposure`: each registered frame's exposure gain and offset
    /// against the reference (`ExposureFit`, on the aligned luma) is undone
    /// before the merge, in every mode. Nil (the default) leaves it to the
    /// alignment: on for `.homography` and `.local` (handheld bursts, whose
    /// auto-exposure drifts), off for the others, and off whenever a
    /// `normalization` is set, which then takes its place (see
    /// `matchesExposure`). The CLI refuses `--match-exposure` with
    /// `--normalize`; given `true` and a normalization, a registered frame's
    /// exposure correction takes the place of its normalisation. The drizzle
    /// pass does not apply it.
    public var matchExposure: Bool?
    /// How frame backgrounds are matched to the reference's before combining (default `.none`).
    public var normalization: Normalization = .none
    /// Which one-channel frames are CFA mosaics, and their pattern (default
    /// `.auto`: the file's `BAYERPAT`). Mosaics are calibrated as they are,
    /// then debayered into RGB before measuring and registration.
    public var cfa: CFAChoice = .auto
    /// How mosaics are debayered (default `.bilinear`).
    public var debayer: DebayerMethod = .bilinear
    /// How debayered mosaics are colour balanced (default `.camera`: a
    /// camera raw's as-shot balance and matrix to linear sRGB; Bayer FITS
    /// frames are left as they are).
    public var whiteBalance: WhiteBalance = .camera
    /// Whether colour frames whose ICC profile differs (byte for byte) from
    /// the reference's are converted into it with Little CMS (default
    /// true; relative colorimetric, see `ColourConversion`; a missing or
    /// unreadable profile counts as sRGB). False refuses such a frame
    /// (`StackerError.invalidInput` naming it).
    public var convertColour = true

    /// Whether this run matches each frame's exposure: `matchExposure`, or
    /// when that is nil, `alignment.matchesExposureByDefault` unless a
    /// `normalization` is set.
    public var matchesExposure: Bool {
        matchExposure ?? (normalization == .none && alignment.matchesExposureByDefault)
    }

    /// Options with the documented defaults.
    public init() {}

    /// The number of online processors (at least 1).
    public static var defaultThreadCount: Int { Platform.processorCount }
}
