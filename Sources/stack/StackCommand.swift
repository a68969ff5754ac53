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
        OptionSpec(names: ["--align"], valueName: "model",
                   help: "translation | homography | stars | stars-affine | none (default: translation); stars: rotation, scale and shift from matched stars, for astro frames; stars-affine: an affine fit to them"),
        OptionSpec(names: ["--star-sigma"], valueName: "k",
                   help: "star alignment: a star must stand k background σ above the sky; lower finds fainter stars, higher ignores noise (default: 5)"),
        OptionSpec(names: ["--reference"], valueName: "index",
                   help: "index of the reference frame, from 0, or auto (the sharpest frame) (default: 0)"),
        OptionSpec(names: ["--output", "-o"], valueName: "file",
                   help: "output .jpg/.jpeg, .png, .tif/.tiff or .fits/.fit/.fts (default: stacked.<ext of first frame>, never replacing a file)"),
        OptionSpec(names: ["--quality"], valueName: "1-100", help: "JPEG quality (default: 95)"),
        OptionSpec(names: ["--depth"], valueName: "8|16|32f",
                   help: "bits per sample: 8; 16 for PNG, TIFF, FITS; 32f (32-bit float) for TIFF, FITS (default: the reference frame's, or the nearest the output format has)"),
        OptionSpec(names: ["--report"], valueName: "file.json", help: "write a JSON report of the run"),
        OptionSpec(names: ["--transforms"], valueName: "file.json",
                   help: "stack with the per-frame transforms (and reference, and left-out frames) of a report or a file of its shape, without registering"),
        OptionSpec(names: ["--weights"], valueName: "equal|auto",
                   help: "frame weights for average and sigma-clip; auto = inverse noise variance (default: equal)"),
        OptionSpec(names: ["--kappa"], valueName: "k|low,high",
                   help: "sigma-clip rejection threshold in robust sigmas (default: 3)"),
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
        OptionSpec(names: ["--normalize"], valueName: "method",
                   help: "match frame backgrounds to the reference before combining: none | additive | multiplicative | addscale (default: none)"),
        OptionSpec(names: ["--memory-limit"], valueName: "size",
                   help: "memory for the robust kernels' frame store before spilling to a temporary file, e.g. 512M, 4G (default: 2G)"),
        OptionSpec(names: ["--skip-bad"], valueName: nil,
                   help: "skip frames that cannot be read, with a warning, instead of failing"),
        OptionSpec(names: ["--max-pixels"], valueName: "n",
                   help: "refuse images larger than this many pixels, e.g. 200M (default: 500M)"),
        OptionSpec(names: ["--min-score"], valueName: "score",
                   help: "skip frames whose registration score is below this (default: \(StackOptions().minimumScore))"),
        OptionSpec(names: ["--threads"], valueName: "n", help: "worker threads (default: number of cores)"),
        OptionSpec(names: ["--quiet", "-q"], valueName: nil, help: "no progress line, warnings or summary"),
        OptionSpec(names: ["--help", "-h"], valueName: nil, help: "show this help"),
        OptionSpec(names: ["--version"], valueName: nil, help: "show the version"),
    ]

    /// The USAGE line.
    static let usage = "stack [--mode <mode>] [--align <model>] [--reference <index>] [--output <file>] [<options>] <frame> <frame> ..."

    /// The column where option help starts.
    static var optionsWidth: Int { optionsColumn(specs) }

    /// The full help text (stdout).
    static var help: String {
        """
        OVERVIEW: \(abstract)

        Every frame is registered to the reference frame (subpixel phase
        correlation, a full homography with --align homography, or a similarity
        from matched stars with --align stars), resampled
        onto its grid (Lanczos-3), and combined per pixel.

        USAGE: \(usage)

        ARGUMENTS:
        \(optionsHelp([OptionSpec(names: ["<frame>"], valueName: nil, help: "input frames (JPEG, PNG, TIFF or FITS), at least two; regular files (pipes and devices are refused)")], width: optionsWidth))
        OPTIONS:
        \(optionsHelp(specs, width: optionsWidth))
        EXIT CODES:
          0 done; 1 the work failed (unreadable input, too few frames registered,
          write failed); 2 usage error; 130 interrupted (SIGINT), 143 terminated (SIGTERM).

        EXAMPLES:
          stack --mode average burst/*.jpg
          stack --output clean.jpg --report run.json burst/*.jpg
        """
    }

    /// What the CLI layer needs beyond the pipeline options.
    struct Settings {
        var options = StackOptions()
        var inputs: [FilePath] = []
        var output: FilePath?
        var report: FilePath?
        /// A report (or file of its shape) whose transforms replace registration.
        var transforms: FilePath?
        var quality = 95
        var depth: Int?
        var quiet = false
    }

    /// What `parse` decided to do.
    enum Action {
        case help, version, run(Settings)
    }

    /// Parses and validates the arguments, given as the bytes of `argv`
    /// (file names are kept exactly); throws `UsageError` on any mistake.
    static func parse(_ arguments: [FilePath]) throws -> Action {
        let args = try parseArguments(arguments, specs: specs)
        if args.flags.contains("--help") { return .help }
        if args.flags.contains("--version") { return .version }
        var s = Settings()
        s.quiet = args.flags.contains("--quiet")
        s.options.skipBadFrames = args.flags.contains("--skip-bad")
        if let v = args["--max-pixels"] {
            guard let n = parseCount(v), n >= 1 else {
                throw UsageError(description: "--max-pixels needs a positive count such as 200M, got '\(v)'")
            }
            s.options.maxPixels = n
        }
        if let v = args["--mode"] {
            guard let mode = StackMode(rawValue: v) else {
                throw UsageError(description: "unknown --mode '\(v)' (expected average, median, mode or sigma-clip)")
            }
            s.options.mode = mode
        }
        if let v = args["--align"] {
            guard let a = Alignment(rawValue: v) else {
                throw UsageError(description: "unknown --align '\(v)' (expected translation, homography, stars, stars-affine or none)")
            }
            s.options.alignment = a
        }
        if let v = args["--reference"] {
            if v == "auto" {
                s.options.automaticReference = true
            } else {
                guard let n = Int(v), n >= 0 else {
                    throw UsageError(description: "--reference needs a frame index ≥ 0 or auto, got '\(v)'")
                }
                s.options.referenceIndex = n
            }
        }
        if let v = args["--quality"] {
            guard let q = Int(v), (1...100).contains(q) else {
                throw UsageError(description: "--quality needs a whole number from 1 to 100, got '\(v)'")
            }
            s.quality = q
        }
        if let v = args["--depth"] {
            guard let d = ["8": 8, "16": 16, "32f": 32][v] else {
                throw UsageError(description: "--depth needs 8, 16 or 32f, got '\(v)'")
            }
            s.depth = d
            // A result written with more than 8 bits keeps them in the store too.
            if d > 8 { s.options.storeDepth = .sixteen }
        }
        if let v = args["--star-sigma"] {
            guard let k = Double(v), k > 0, k.isFinite else {
                throw UsageError(description: "--star-sigma needs a positive number of σ such as 3, got '\(v)'")
            }
            s.options.starDetectionSigma = k
        }
        if let v = args["--weights"] {
            guard let w = FrameWeighting(rawValue: v) else {
                throw UsageError(description: "unknown --weights '\(v)' (expected equal or auto)")
            }
            s.options.weighting = w
        }
        if let v = args["--kappa"] {
            let parts = v.split(separator: ",", omittingEmptySubsequences: false).map { Float(String($0)) }
            guard (1...2).contains(parts.count), parts.allSatisfy({ $0 != nil && $0! > 0 && $0!.isFinite }) else {
                throw UsageError(description: "--kappa needs a positive number or LOW,HIGH, got '\(v)'")
            }
            s.options.kappaLow = parts[0]!
            s.options.kappaHigh = parts.last!!
        }
        s.options.calibration.bias = args.lists["--bias"] ?? []
        s.options.calibration.dark = args.lists["--dark"] ?? []
        s.options.calibration.flat = args.lists["--flat"] ?? []
        s.options.calibration.cosmetic = args.flags.contains("--cosmetic")
        if s.options.calibration.cosmetic && s.options.calibration.dark.isEmpty {
            throw UsageError(description: "--cosmetic needs dark frames (--dark), where hot pixels are found")
        }
        if let v = args["--master-mode"] {
            switch v {
            case "median": s.options.calibration.masterKernel = .median
            case "sigma-clip": s.options.calibration.masterKernel = .sigmaClip
            default: throw UsageError(description: "unknown --master-mode '\(v)' (expected median or sigma-clip)")
            }
        }
        if let v = args["--normalize"] {
            guard let n = Normalization(rawValue: v) else {
                throw UsageError(description: "unknown --normalize '\(v)' (expected none, additive, multiplicative or addscale)")
            }
            s.options.normalization = n
        }
        if let v = args["--memory-limit"] {
            guard let bytes = parseByteSize(v), bytes >= 1 << 20 else {
                throw UsageError(description: "--memory-limit needs a size of at least 1M such as 512M or 4G, got '\(v)'")
            }
            s.options.memoryLimit = bytes
        }
        if let v = args["--min-score"] {
            guard let x = Double(v), x >= 0, x <= 1 else {
                throw UsageError(description: "--min-score needs a number from 0 to 1, got '\(v)'")
            }
            s.options.minimumScore = x
        }
        if let v = args["--threads"] {
            guard let n = Int(v), n >= 1, n <= 1024 else {
                throw UsageError(description: "--threads needs a whole number from 1 to 1024, got '\(v)'")
            }
            s.options.threads = n
        }
        if let v = args.values["--output"] {
            guard !v.isEmpty else { throw UsageError(description: "--output needs a file name") }
            guard let format = ImageFormat.fromExtension(of: v) else {
                throw UsageError(description: "--output '\(v)': unsupported format (use .jpg, .jpeg, .png, .tif, .tiff, .fits, .fit or .fts)")
            }
            try checkDepth(s.depth, format: format)
            s.output = v
        }
        if let v = args.values["--report"] {
            guard !v.isEmpty else { throw UsageError(description: "--report needs a file name") }
            s.report = v
        }
        if let v = args.values["--transforms"] {
            guard !v.isEmpty else { throw UsageError(description: "--transforms needs a file name") }
            guard args["--reference"] == nil else {
                throw UsageError(description: "--transforms takes the reference from its file; drop --reference")
            }
            s.transforms = v
        }
        s.inputs = args.positionals
        guard !s.inputs.isEmpty else { throw UsageError(description: "no frames given") }
        if s.output == nil {
            try checkDepth(s.depth, format: ImageFormat.fromExtension(of: s.inputs[0]) ?? .jpeg)
        }
        guard s.options.referenceIndex < s.inputs.count else {
            throw UsageError(description: "--reference \(s.options.referenceIndex) is out of range: \(s.inputs.count) frame(s) given (indices 0…\(s.inputs.count - 1))")
        }
        return .run(s)
    }

    /// Refuses a `--depth` the output format cannot hold (16 needs PNG, TIFF
    /// or FITS; 32f needs TIFF or FITS).
    static func checkDepth(_ depth: Int?, format: ImageFormat) throws {
        guard let depth, !format.bitDepths.contains(depth) else { return }
        if depth == 32 {
            throw UsageError(description: "--depth 32f needs a .tif, .tiff or .fits output (float samples)")
        }
        throw UsageError(description: "--depth \(depth) needs a .png, .tif, .tiff or .fits output; JPEG is 8-bit")
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
