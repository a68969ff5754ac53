import Stacker

/// The `stack` command: parse → validate → run, as swift-argument-parser does.
struct StackCommand {
    /// The program version printed by `--version`.
    static let version = "0.1.0"

    /// One-line abstract shown at the top of help.
    static let abstract = "Align a burst of frames and stack them into one clean image."

    /// Every option, in help order.
    static let specs: [OptionSpec] = [
        OptionSpec(names: ["--mode"], valueName: "mode",
                   help: "average | median | mode | sigma-clip (default: average)"),
        OptionSpec(names: ["--robust"], valueName: nil,
                   help: "with --mode average: the motion-robust average, each sample weighted by Tukey's biweight on its distance from the pixel's median, so what alignment missed fades instead of ghosting"),
        OptionSpec(names: ["--align"], valueName: "model",
                   help: "translation | homography | local | stars | stars-affine | none (default: translation); local: the homography, then per-tile displacements for parallax (near things moving against far ones); stars: rotation, scale and shift from matched stars, for astro frames; stars-affine: an affine fit to them"),
        OptionSpec(names: ["--star-sigma"], valueName: "k",
                   help: "star alignment: a star must stand k background σ above the sky; lower finds fainter stars, higher ignores noise (default: 5)"),
        OptionSpec(names: ["--reference"], valueName: "index",
                   help: "index of the reference frame, from 0, or auto (the sharpest frame) (default: 0)"),
        OptionSpec(names: ["--output", "-o"], valueName: "file",
                   help: "output .jpg/.jpeg, .png, .tif/.tiff, .heic/.heif/.hif or .fits/.fit/.fts, or a folder (DIR/ or an existing one) to write stacked.<ext> in (default: stacked.<ext of first frame>, never replacing a file)"),
        OptionSpec(names: ["--format"], valueName: "jpg|png|tif|fits|heic",
                   help: "the output's type when it is named for you (no --output, or an output folder) (default: the first frame's, else jpg)"),
        OptionSpec(names: ["--recursive"], valueName: nil,
                   help: "a folder given as frames includes the image files in its subfolders too"),
        OptionSpec(names: ["--quality"], valueName: "1-100", help: "JPEG and HEIC quality (default: 95)"),
        OptionSpec(names: ["--depth"], valueName: "8|16|32f",
                   help: "bits per sample: 8; 16 for PNG, TIFF, FITS; 32f (32-bit float) for TIFF, FITS (default: 8 for JPEG; for PNG, TIFF and FITS 16, or 32f when the reference frame is float)"),
        OptionSpec(names: ["--report"], valueName: "file.json", help: "write a JSON report of the run"),
        OptionSpec(names: ["--plot"], valueName: "file.svg",
                   help: "draw the per-frame measures over the sequence (score, weight, noise; FWHM, roundness, stars, background for star frames) as an SVG"),
        OptionSpec(names: ["--before-after"], valueName: "file",
                   help: "also write the reference frame (left) beside the stack (right), to see what stacking did"),
        OptionSpec(names: ["--transforms"], valueName: "file.json",
                   help: "stack with the per-frame transforms (and reference, and left-out frames) of a report or a file of its shape, without registering; repeat it for the slices stack register --frames wrote"),
        OptionSpec(names: ["--partial"], valueName: "file.fits",
                   help: "write this shard's piece for stack merge instead of an image: the average's sums Σw·x and Σw of the --frames slice, or with --rows one band of the output (32-bit float FITS); see docs/cluster.md"),
        OptionSpec(names: ["--frames"], valueName: "a:b",
                   help: "with --partial (average) or stack register: only frames a to b − 1 (from 0), against the same reference"),
        OptionSpec(names: ["--rows"], valueName: "i/N",
                   help: "with --partial: band i (from 0) of N bands of rows of the output, over all frames; for the robust modes"),
        OptionSpec(names: ["--weights"], valueName: "equal|auto|fwhm|stars",
                   help: "frame weights for the average and the mean of --reject and sigma-clip; auto = inverse noise variance; with --align stars: fwhm = (reference FWHM / FWHM)², stars = stars found / the reference's (default: equal)"),
        OptionSpec(names: ["--kappa"], valueName: "k|low,high",
                   help: "sigma-clip rejection threshold in robust sigmas, and the κ of --reject mad, winsorized, linear-fit (default: 3)"),
        OptionSpec(names: ["--reject"], valueName: "algorithm",
                   help: "reject outliers per pixel, then take the (weighted) mean of what is kept: percentile | sigma | mad | winsorized | linear-fit | gesd; sigma is --mode sigma-clip (see README for which suits how many frames)"),
        OptionSpec(names: ["--reject-low"], valueName: "k",
                   help: "--reject: the bound below the centre: κ in robust σ (default: 3) or, for percentile, a fraction of the median (default: 0.2)"),
        OptionSpec(names: ["--reject-high"], valueName: "k",
                   help: "--reject: the bound above, as --reject-low (percentile: 0.1)"),
        OptionSpec(names: ["--gesd-outliers"], valueName: "fraction",
                   help: "--reject gesd: at most this fraction of a pixel's frames are outliers, 0 to 1 (default: 0.3)"),
        OptionSpec(names: ["--gesd-alpha"], valueName: "alpha",
                   help: "--reject gesd: the test's significance, 0 to 1 (default: 0.05)"),
        OptionSpec(names: ["--rejection-map"], valueName: "file",
                   help: "with --reject or --mode sigma-clip, also write per pixel the fraction of frames rejected low (red) and high (green): .png/.tif (16-bit RGB) or .fits (3-plane float cube, third plane 0)"),
        OptionSpec(names: ["--scale"], valueName: "s",
                   help: "drizzle onto a grid s times finer (1.5, 2 or 3; 1…4), after the 1× stack, with its transforms; with average (--robust too), sigma-clip or --reject (default: 1, no drizzle)"),
        OptionSpec(names: ["--pixfrac"], valueName: "f",
                   help: "--scale: the drop's size in input pixels, in (0, 1] (default: 1)"),
        OptionSpec(names: ["--drizzle-kernel"], valueName: "square|gaussian",
                   help: "--scale: the drop's shape; gaussian has FWHM = pixfrac (default: square)"),
        OptionSpec(names: ["--sr-merge"], valueName: "drizzle|kernel",
                   help: "--scale: drizzle drops, or kernel regression (Wronski et al. 2019: kernels steered by the 1× stack's edges); with --robust, samples that disagree with the robust 1× stack lose weight (default: drizzle)"),
        OptionSpec(names: ["--weight-map"], valueName: "file",
                   help: "--scale: also write per output pixel the summed drop weight (0 = no drop landed): .fits (float) or .png/.tif (16-bit, largest weight = 1)"),
        OptionSpec(names: ["--keep"], valueName: "N|P%",
                   help: "stack only the best N frames, or P% of them, by registration score (star alignment: smallest star FWHM) or --keep-by; the others are listed in the report with the cut-off (default: all)"),
        OptionSpec(names: ["--keep-by"], valueName: "measure",
                   help: "what --keep ranks by: score (higher is better) | fwhm (lower) | roundness (higher) | stars (more) | background (lower); fwhm, roundness and stars need --align stars, background --align stars, calibration or --normalize (default: score, fwhm with star alignment)"),
        OptionSpec(names: ["--bias"], valueName: "file|folder",
                   help: "bias frames: a master, or raw frames (repeat the option, or name a folder) combined per pixel"),
        OptionSpec(names: ["--dark"], valueName: "file|folder",
                   help: "dark frames (same exposure as the lights), as for --bias"),
        OptionSpec(names: ["--flat"], valueName: "file|folder",
                   help: "flat frames, as for --bias; bias-subtracted and normalised to mean 1"),
        OptionSpec(names: ["--master-mode"], valueName: "median|sigma-clip",
                   help: "how raw calibration frames are combined into masters (default: sigma-clip)"),
        OptionSpec(names: ["--cosmetic"], valueName: nil,
                   help: "repair hot and cold pixels found in the master dark"),
        OptionSpec(names: ["--cfa"], valueName: "auto|RGGB|BGGR|GRBG|GBRG|none",
                   help: "which gray frames are Bayer mosaics: auto = the file says (FITS BAYERPAT, a camera raw's CFA), a pattern at the upright top-left pixel for every gray frame, or none (stack mosaics as gray) (default: auto)"),
        OptionSpec(names: ["--debayer"], valueName: "bilinear|rcd|ahd",
                   help: "how mosaics become RGB, after calibration on the mosaic: bilinear = the fastest, rcd = Ratio Corrected Demosaicing, ahd = Adaptive Homogeneity-Directed (default: bilinear)"),
        OptionSpec(names: ["--transfer"], valueName: "linear|srgb",
                   help: "the output's transfer curve: linear = the values as stacked, srgb = encoded for display (default: srgb for a camera raw stack written as JPEG, PNG or HEIC, else linear)"),
        OptionSpec(names: ["--output-scale"], valueName: "native|data",
                   help: "native = the values in the inputs' scale (16-bit data keep their ADU), data = the result's min…max stretched to the output's full range, for integer data that fill a small part of their type (default: native)"),
        OptionSpec(names: ["--interpolation"], valueName: "kernel",
                   help: "how frames are resampled onto the reference grid: lanczos3 | cubic | bilinear | nearest; nearest rounds shifts to whole pixels and never resamples (default: lanczos3)"),
        OptionSpec(names: ["--wb"], valueName: "none|camera|auto",
                   help: "white balance of debayered mosaics, then a camera raw's matrix to linear sRGB: camera = the raw's as-shot balance (Bayer FITS left as is), auto = grey world, none = the camera's own colour (default: camera)"),
        OptionSpec(names: ["--match-exposure"], valueName: nil,
                   help: "undo each frame's exposure drift before the merge: a robust gain and offset of its aligned luma against the reference's, for handheld bursts whose auto-exposure moved (reported as exposureGain, exposureOffset) (default: on with --align homography or local unless --normalize is given, which takes its place; off otherwise)"),
        OptionSpec(names: ["--no-match-exposure"], valueName: nil,
                   help: "leave each frame's exposure as it is (turns off the default exposure matching of --align homography and local)"),
        OptionSpec(names: ["--normalize"], valueName: "method",
                   help: "match frame backgrounds to the reference before combining: none | additive | multiplicative | addscale (default: none)"),
        OptionSpec(names: ["--memory-limit"], valueName: "size",
                   help: "memory for the robust kernels' frame store before spilling to a temporary file, e.g. 512M, 4G (default: 2G)"),
        OptionSpec(names: ["--skip-bad"], valueName: nil,
                   help: "skip frames that cannot be read, with a warning, instead of failing"),
        OptionSpec(names: ["--no-colour-convert"], valueName: nil,
                   help: "refuse a colour frame whose ICC profile differs from the reference's instead of converting it into the reference's (relative colorimetric; no profile counts as sRGB)"),
        OptionSpec(names: ["--max-pixels"], valueName: "n",
                   help: "refuse images larger than this many pixels, e.g. 200M (default: 500M)"),
        OptionSpec(names: ["--min-score"], valueName: "score",
                   help: "skip frames whose registration score is below this (default: \(StackOptions().minimumScore))"),
        OptionSpec(names: ["--threads"], valueName: "n", help: "worker threads (default: number of cores)"),
        OptionSpec(names: ["--quiet", "-q"], valueName: nil, help: "no progress line, warnings or summary"),
        OptionSpec(names: ["--progress"], valueName: "line|json|none",
                   help: "line: frames/s, elapsed and time left on the terminal's progress line; json: one JSON object per event (each frame aligned) on stderr, terminal or not, even with --quiet (default: line)"),
        OptionSpec(names: ["--generate-completion-script"], valueName: "bash|zsh|fish",
                   help: "print a completion script for the shell, made from these options, and exit"),
        OptionSpec(names: ["--generate-manual"], valueName: nil, help: "print the stack.1 manual page (roff), made from these options, and exit"),
        OptionSpec(names: ["--help", "-h"], valueName: nil, help: "show this help"),
        OptionSpec(names: ["--version"], valueName: nil, help: "show the version"),
    ]

    /// What the command does, after the abstract (help and the manual).
    static let discussion = """
        Every frame is registered to the reference frame (subpixel phase
        correlation, a full homography with --align homography, that plus a
        smooth field of per-tile displacements with --align local, or a similarity
        from matched stars with --align stars), resampled
        onto its grid (Lanczos-3 unless --interpolation says otherwise), and
        combined per pixel.
        """

    /// The exit codes, for help and the manual.
    static let exitCodes = """
        0 done; 1 the work failed (unreadable input, too few frames registered,
        a frame in another colour profile under --no-colour-convert, write
        failed); 2 usage error; 130 interrupted (SIGINT), 143 terminated (SIGTERM).
        """

    /// The frames argument, for help and the manual.
    static let argumentSpec = OptionSpec(names: ["<frame>"], valueName: nil, help: "input frames (JPEG, PNG, TIFF, FITS, HEIC/HEIF/AVIF: each image of a burst file is a frame; camera raws and DNG through LibRaw), at least two; regular files (pipes and devices are refused), or folders: the image files in them (by content, not name), in natural order (f2 before f10)")

    /// The USAGE line.
    static let usage = "stack [--mode <mode>] [--align <model>] [--reference <index>] [--output <file>] [<options>] <frame> <frame> ..."

    /// The column where option help starts.
    static var optionsWidth: Int { optionsColumn(specs) }

    /// The full help text (stdout).
    static var help: String {
        """
        OVERVIEW: \(abstract)

        \(discussion)

        USAGE: \(usage)

        ARGUMENTS:
        \(optionsHelp([argumentSpec], width: optionsWidth))
        OPTIONS:
        \(optionsHelp(specs, width: optionsWidth))
        EXIT CODES:
          \(exitCodes.replacing("\n", with: "\n  "))

        SUBCOMMANDS:
        \(optionsHelp(Subcommands.all.map { OptionSpec(names: [$0.name], valueName: nil, help: $0.abstract) }, width: optionsWidth))  See 'stack <subcommand> --help'.

        EXAMPLES:
          stack --mode average burst/*.jpg
          stack --mode median -o out/ burst/
          stack --output clean.jpg --report run.json burst/*.jpg
        """
    }

    /// What the CLI layer needs beyond the pipeline options.
    struct Settings {
        var options = StackOptions()
        var inputs: [FilePath] = []
        var output: FilePath?
        var report: FilePath?
        /// Where to write the reference frame beside the stack, if anywhere.
        var beforeAfter: FilePath?
        /// A report (or file of its shape) whose transforms replace registration.
        var transforms: [FilePath] = []
        /// Where to write this shard's piece (`--partial`), if anywhere.
        var partial: FilePath?
        /// The band of rows `--rows i/N` asks for.
        var rows: (band: Int, of: Int)?
        var quality = 95
        var depth: Int?
        var quiet = false
        /// Where to write the rejection map, if anywhere.
        var rejectionMap: FilePath?
        /// A folder to write `stacked.<ext>` in (`-o DIR/` or an existing folder).
        var outputFolder: FilePath?
        /// The extension of an output named for the user (`--format`).
        var format: String?
        /// Whether folders given as frames include their subfolders.
        var recursive = false
        /// How progress is shown.
        var progress = ProgressLine.Style.line
        /// Where to draw the per-frame plot, if anywhere.
        var plot: FilePath?
        /// Where to write the drizzle weight map, if anywhere.
        var weightMap: FilePath?
    }

    /// What `parse` decided to do.
    enum Action {
        case help, version, run(Settings)
        /// Print a completion script for this shell.
        case completion(CompletionScript.Shell)
        /// Print the manual page.
        case manual
    }

    /// Parses and validates the arguments, given as the bytes of `argv`
    /// (file names are kept exactly); throws `UsageError` on any mistake.
    static func parse(_ arguments: [FilePath]) throws -> Action {
        let args = try parseArguments(arguments, specs: specs)
        if args.flags.contains("--help") { return .help }
        if args.flags.contains("--version") { return .version }
        if let shell = try args.value("--generate-completion-script", CompletionScript.Shell.init(rawValue:), else: {
            "unknown shell '\($0)' (expected bash, zsh or fish)" }) { return .completion(shell) }
        if args.flags.contains("--generate-manual") { return .manual }
        var s = Settings()
        s.quiet = args.flags.contains("--quiet")
        try parseStacking(args, into: &s.options)
        try parseRejection(args, into: &s)
        try parseDrizzle(args, into: &s)
        try parseCalibration(args, into: &s.options.calibration)
        try parseLimits(args, into: &s.options)
        try parseOutput(args, into: &s)
        try parseShards(args, into: &s)
        if let conflict = s.options.starMeasureConflict(transformsGiven: !s.transforms.isEmpty) {
            throw UsageError(description: conflict)
        }
        s.inputs = args.positionals
        guard !s.inputs.isEmpty else { throw UsageError(description: "no frames given") }
        if s.output == nil && s.partial == nil {
            let named = s.format.flatMap { ImageFormat.fromExtension(of: FilePath("x." + $0)) }
            try checkDepth(s.depth, format: named ?? ImageFormat.fromExtension(of: s.inputs[0]) ?? .jpeg)
        }
        return .run(s)
    }

    /// How frames are aligned, weighted and combined.
    private static func parseStacking(_ args: ParsedArguments, into o: inout StackOptions) throws {
        if let mode = try args.value("--mode", StackMode.init(rawValue:), else: {
            "unknown --mode '\($0)' (expected average, median, mode or sigma-clip)" }) { o.mode = mode }
        if args.flags.contains("--robust") {
            guard o.mode == .average else {
                throw UsageError(description: "--robust goes with --mode average (the median and sigma-clip are robust already)")
            }
            o.robustAverage = true
        }
        if let a = try args.value("--align", Alignment.init(rawValue:), else: {
            "unknown --align '\($0)' (expected translation, homography, local, stars, stars-affine or none)" }) { o.alignment = a }
        if let v = args["--reference"] {
            if v == "auto" {
                o.automaticReference = true
            } else {
                guard let n = Int(v), n >= 0 else {
                    throw UsageError(description: "--reference needs a frame index ≥ 0 or auto, got '\(v)'")
                }
                o.referenceIndex = n
            }
        }
        if let k = try args.value("--star-sigma", { Double($0).flatMap { $0 > 0 && $0.isFinite ? $0 : nil } }, else: {
            "--star-sigma needs a positive number of σ such as 3, got '\($0)'" }) { o.starDetectionSigma = k }
        if let w = try args.value("--weights", FrameWeighting.init(rawValue:), else: {
            "unknown --weights '\($0)' (expected equal, auto, fwhm or stars)" }) { o.weighting = w }
        if let kappa = try args.value("--kappa", parseKappa, else: {
            "--kappa needs a positive number or LOW,HIGH, got '\($0)'" }) { (o.kappaLow, o.kappaHigh) = kappa }
        if let n = try args.value("--normalize", Normalization.init(rawValue:), else: {
            "unknown --normalize '\($0)' (expected none, additive, multiplicative or addscale)" }) { o.normalization = n }
        if args.flags.contains("--match-exposure") {
            guard !args.flags.contains("--no-match-exposure") else {
                throw UsageError(description: "--match-exposure and --no-match-exposure contradict each other; choose one")
            }
            guard o.normalization == .none else {
                throw UsageError(description: "--match-exposure and --normalize both match frame levels to the reference; choose one")
            }
            o.matchExposure = true
        } else if args.flags.contains("--no-match-exposure") {
            o.matchExposure = false
        }
        if let c = try args.value("--cfa", parseCFA, else: {
            "unknown --cfa '\($0)' (expected auto, RGGB, BGGR, GRBG, GBRG or none)" }) { o.cfa = c }
        if let d = try args.value("--debayer", DebayerMethod.init(rawValue:), else: {
            "unknown --debayer '\($0)' (expected bilinear, rcd or ahd)" }) { o.debayer = d }
        if let b = try args.value("--wb", WhiteBalance.init(rawValue:), else: {
            "unknown --wb '\($0)' (expected none, camera or auto)" }) { o.whiteBalance = b }
        if let t = try args.value("--transfer", TransferCurve.init(rawValue:), else: {
            "unknown --transfer '\($0)' (expected linear or srgb)" }) { o.transfer = t }
        if let s = try args.value("--output-scale", OutputScale.init(rawValue:), else: {
            "unknown --output-scale '\($0)' (expected native or data)" }) { o.outputScale = s }
        if let k = try args.value("--interpolation", Interpolation.init(rawValue:), else: {
            "unknown --interpolation '\($0)' (expected lanczos3, cubic, bilinear or nearest)" }) { o.interpolation = k }
        if let k = try args.value("--keep", parseKeep, else: {
            "--keep needs a frame count ≥ 1 or a percentage above 0 and at most 100 such as 80%, got '\($0)'" }) { o.keep = k }
        if let m = try args.value("--keep-by", FrameSelection.Measure.init(rawValue:), else: {
            "unknown --keep-by '\($0)' (expected score, fwhm, roundness, stars or background)" }) { o.keepBy = m }
        if let x = try args.value("--min-score", { Double($0).flatMap { (0...1).contains($0) ? $0 : nil } }, else: {
            "--min-score needs a number from 0 to 1, got '\($0)'" }) { o.minimumScore = x }
    }

    /// `--reject` and its thresholds, and `--rejection-map`.
    private static func parseRejection(_ args: ParsedArguments, into s: inout Settings) throws {
        let names = RejectionAlgorithm.Name.allCases.map(\.rawValue).joined(separator: ", ")
        let name = try args.value("--reject", RejectionAlgorithm.Name.init(rawValue:), else: {
            "unknown --reject '\($0)' (expected \(names))" })
        func number(_ option: String, _ valid: @escaping (Float) -> Bool, _ what: String) throws -> Float? {
            let v = try args.value(option, { Float($0).flatMap { $0.isFinite && valid($0) ? $0 : nil } }, else: {
                "\(option) needs \(what), got '\($0)'" })
            if v != nil && name == nil { throw UsageError(description: "\(option) needs --reject") }
            return v
        }
        let percentile = name == .percentile
        let boundWhat = percentile ? "a fraction of the median ≥ 0 such as 0.2" : "a positive κ such as 3"
        let low = try number("--reject-low", { percentile ? $0 >= 0 : $0 > 0 }, boundWhat)
        let high = try number("--reject-high", { percentile ? $0 >= 0 : $0 > 0 }, boundWhat)
        let fraction = try number("--gesd-outliers", { $0 > 0 && $0 < 1 }, "a fraction between 0 and 1 such as 0.3")
        let alpha = try number("--gesd-alpha", { $0 > 0 && $0 < 1 }, "a significance between 0 and 1 such as 0.05")
        if let name {
            if let mode = args["--mode"], mode != StackMode.sigmaClip.rawValue {
                throw UsageError(description: "--reject makes its own stack (the mean of the kept samples); drop --mode \(mode)")
            }
            if name != .gesd && (fraction != nil || alpha != nil) {
                throw UsageError(description: "--gesd-outliers and --gesd-alpha need --reject gesd")
            }
            // --kappa stands for the κ of every κσ algorithm unless --reject-low/-high say otherwise.
            let o = s.options, kappaGiven = args["--kappa"] != nil && name != .percentile
            let kappaLow = low ?? (kappaGiven ? o.kappaLow : nil), kappaHigh = high ?? (kappaGiven ? o.kappaHigh : nil)
            s.options.rejection = name == .sigma
                ? .sigma(kappaLow: kappaLow ?? o.kappaLow, kappaHigh: kappaHigh ?? o.kappaHigh, maxIterations: o.clipIterations)
                : .named(name, low: kappaLow, high: kappaHigh, outlierFraction: fraction, significance: alpha)
        }
        if let v = args.values["--rejection-map"] {
            guard name != nil || s.options.mode == .sigmaClip else {
                throw UsageError(description: "--rejection-map needs --reject or --mode sigma-clip")
            }
            guard let format = ImageFormat.fromExtension(of: v), format != .jpeg else {
                throw UsageError(description: "--rejection-map '\(v)': use .png, .tif, .tiff, .fits, .fit or .fts (16-bit or float, not JPEG)")
            }
            s.rejectionMap = v
            s.options.makesRejectionMap = true
        }
    }

    /// `--keep N` (a count ≥ 1) or `--keep P%` (0 < P ≤ 100).
    private static func parseKeep(_ v: String) -> FrameSelection? {
        let selection: FrameSelection
        if v.hasSuffix("%") {
            guard let p = Double(v.dropLast()) else { return nil }
            selection = .percent(p)
        } else {
            guard let n = Int(v) else { return nil }
            selection = .count(n)
        }
        return selection.invalidReason == nil ? selection : nil
    }

    /// `--cfa auto|none|PATTERN` (the pattern in any case).
    private static func parseCFA(_ v: String) -> CFAChoice? {
        switch v.lowercased() {
        case "auto": return .auto
        case "none": return CFAChoice.none
        default: return BayerPattern(rawValue: v.uppercased()).map { .pattern($0) }
        }
    }

    /// `--kappa K` or `--kappa LOW,HIGH`, each positive and finite.
    private static func parseKappa(_ v: String) -> (Float, Float)? {
        let parts = v.split(separator: ",", omittingEmptySubsequences: false).map { Float(String($0)) }
        guard (1...2).contains(parts.count), parts.allSatisfy({ $0 != nil && $0! > 0 && $0!.isFinite }) else { return nil }
        return (parts[0]!, parts.last!!)
    }

    /// Bias, dark and flat frames, and how their masters are made.
    private static func parseCalibration(_ args: ParsedArguments, into c: inout CalibrationOptions) throws {
        c.bias = args.lists["--bias"] ?? []
        c.dark = args.lists["--dark"] ?? []
        c.flat = args.lists["--flat"] ?? []
        c.cosmetic = args.flags.contains("--cosmetic")
        if c.cosmetic && c.dark.isEmpty {
            throw UsageError(description: "--cosmetic needs dark frames (--dark), where hot pixels are found")
        }
        let kernels: [String: RobustKernel] = ["median": .median, "sigma-clip": .sigmaClip]
        if let k = try args.value("--master-mode", { kernels[$0] }, else: {
            "unknown --master-mode '\($0)' (expected median or sigma-clip)" }) { c.masterKernel = k }
    }

    /// Threads, memory, image size, and what to do with bad frames.
    private static func parseLimits(_ args: ParsedArguments, into o: inout StackOptions) throws {
        o.skipBadFrames = args.flags.contains("--skip-bad")
        o.convertColour = !args.flags.contains("--no-colour-convert")
        if let n = try args.value("--max-pixels", { parseCount($0).flatMap { $0 >= 1 ? $0 : nil } }, else: {
            "--max-pixels needs a positive count such as 200M, got '\($0)'" }) { o.maxPixels = n }
        if let bytes = try args.value("--memory-limit", { parseByteSize($0).flatMap { $0 >= 1 << 20 ? $0 : nil } }, else: {
            "--memory-limit needs a size of at least 1M such as 512M or 4G, got '\($0)'" }) { o.memoryLimit = bytes }
        if let n = try args.value("--threads", { Int($0).flatMap { (1...1024).contains($0) ? $0 : nil } }, else: {
            "--threads needs a whole number from 1 to 1024, got '\($0)'" }) { o.threads = n }
    }

    /// The output, its encoding, the report and given transforms.
    private static func parseOutput(_ args: ParsedArguments, into s: inout Settings) throws {
        if let q = try args.value("--quality", { Int($0).flatMap { (1...100).contains($0) ? $0 : nil } }, else: {
            "--quality needs a whole number from 1 to 100, got '\($0)'" }) { s.quality = q }
        if let d = try args.value("--depth", { ["8": 8, "16": 16, "32f": 32][$0] }, else: {
            "--depth needs 8, 16 or 32f, got '\($0)'" }) {
            s.depth = d
            // A result written with more than 8 bits keeps them in the store
            // too: 16 bits, or floats for a float result (values outside 0…1 kept).
            if d > 8 { s.options.storeDepth = d == 32 ? .float32 : .sixteen }
        }
        s.recursive = args.flags.contains("--recursive")
        if let p = try args.value("--progress", ProgressLine.Style.init(rawValue:), else: {
            "unknown --progress '\($0)' (expected line, json or none)" }) { s.progress = p }
        if let v = args.values["--plot"] {
            guard v.lowercasedExtension == "svg" else { throw UsageError(description: "--plot '\(v)': the plot is an SVG; name it .svg") }
            s.plot = v
        }
        s.format = try args.value("--format", OutputFolder.formatExtension, else: {
            "unknown --format '\($0)' (expected jpg, png, tif, fits or heic)" })
        if let v = args.values["--output"], OutputFolder.isFolder(v) {
            s.outputFolder = v
        } else if let v = args.values["--output"] {
            guard !v.isEmpty else { throw UsageError(description: "--output needs a file name") }
            if let f = s.format, ImageFormat.fromExtension(of: v) != ImageFormat.fromExtension(of: FilePath("x." + f)) {
                throw UsageError(description: "--format \(f) disagrees with --output '\(v)'; the file's extension gives its type")
            }
            guard let format = ImageFormat.fromExtension(of: v) else {
                throw UsageError(description: "--output '\(v)': unsupported format (use .jpg, .jpeg, .png, .tif, .tiff, .heic, .heif, .hif, .fits, .fit or .fts)")
            }
            try checkDepth(s.depth, format: format)
            s.output = v
        }
        if let v = args.values["--report"] {
            guard !v.isEmpty else { throw UsageError(description: "--report needs a file name") }
            s.report = v
        }
        if let v = args.values["--before-after"] {
            guard ImageFormat.fromExtension(of: v) != nil else {
                throw UsageError(description: "--before-after '\(v)': unsupported format (use .jpg, .jpeg, .png, .tif, .tiff, .heic, .heif, .hif, .fits, .fit or .fts)")
            }
            s.beforeAfter = v
        }
        if let parts = args.lists["--transforms"] {
            guard !parts.contains(where: \.isEmpty) else { throw UsageError(description: "--transforms needs a file name") }
            guard args["--reference"] == nil else {
                throw UsageError(description: "--transforms takes the reference from its file; drop --reference")
            }
            s.transforms = parts
        }
    }

    /// Refuses a `--reference` past the last of `frameCount` frames (files
    /// that hold several frames count each).
    static func checkReference(_ options: StackOptions, frameCount: Int) throws {
        guard options.referenceIndex < frameCount else {
            throw UsageError(description: "--reference \(options.referenceIndex) is out of range: \(frameCount) frame(s) given (indices 0…\(frameCount - 1))")
        }
    }

    /// Refuses a `--depth` the output format cannot hold (16 needs PNG, TIFF,
    /// HEIC or FITS; 32f needs TIFF or FITS).
    static func checkDepth(_ depth: Int?, format: ImageFormat) throws {
        guard let depth, !format.bitDepths.contains(depth) else { return }
        if depth == 32 {
            throw UsageError(description: "--depth 32f needs a .tif, .tiff or .fits output (float samples)")
        }
        throw UsageError(description: "--depth \(depth) needs a .png, .tif, .tiff, .heic or .fits output; JPEG is 8-bit")
    }
}

/// Parses a byte size: a number with an optional binary suffix
/// (`K`, `M`, `G`, `T`, optionally followed by `i`, `B` or `iB`): `512M`, `1.5GiB`, `4096`.
func parseByteSize(_ text: String) -> Int? {
    var t = Substring(text.uppercased())
    if t.hasSuffix("B") { t = t.dropLast() }
    if t.hasSuffix("I") { t = t.dropLast() }
    var scale = 1.0
    if let last = t.last, let power = ["K": 1, "M": 2, "G": 3, "T": 4][String(last)] {
        scale = pow1024(power)
        t = t.dropLast()
    }
    guard let number = Double(t), number.isFinite, number >= 0 else { return nil }
    let bytes = number * scale
    guard bytes < 9e18 else { return nil }
    return Int(bytes)
}

/// 1024 to the power `n`.
private func pow1024(_ n: Int) -> Double { (0..<n).reduce(1.0) { acc, _ in acc * 1024 } }

/// Parses a count with an optional decimal suffix (`K` = 10³, `M` = 10⁶, `G` = 10⁹): `200M`, `1.5G`, `4096`.
func parseCount(_ text: String) -> Int? {
    var t = Substring(text.uppercased())
    var scale = 1.0
    if let last = t.last, let s = ["K": 1e3, "M": 1e6, "G": 1e9][String(last)] {
        scale = s
        t = t.dropLast()
    }
    guard let number = Double(t), number.isFinite, number >= 0, number * scale < 9e18 else { return nil }
    return Int(number * scale)
}
