import Registration
import Stacker

/// `stack compare OUTPUT --truth TRUTH …`: scores an image against its
/// ground truth with the library's metrics (`ImageMetrics`), so a test
/// suite in any language can assert a stack's quality in one line.
enum CompareCommand {
    /// One-line abstract shown in help.
    static let abstract = "Score an image against its ground truth: PSNR, SSIM and the residual over a mask."

    /// Every option, in help order.
    static let specs: [OptionSpec] = [
        OptionSpec(names: ["--truth"], valueName: "file", help: "the ground truth, the same size as the image (required)"),
        OptionSpec(names: ["--mask"], valueName: "file",
                   help: "where moving objects passed (luma > 0.5), for the ghost residual: mean |image − truth| there"),
        OptionSpec(names: ["--margin"], valueName: "n", help: "leave out n pixels along each edge from every measure (default: 0)"),
        OptionSpec(names: ["--json"], valueName: nil, help: "print one JSON object instead of lines of text"),
        OptionSpec(names: ["--require-psnr"], valueName: "dB", help: "exit 1 when the RGB PSNR is below this"),
        OptionSpec(names: ["--require-ghost"], valueName: "residual", help: "exit 1 when the ghost residual is above this (needs --mask)"),
        OptionSpec(names: ["--help", "-h"], valueName: nil, help: "show this help"),
    ]

    /// The USAGE line.
    static let usage = "stack compare <image> --truth <file> [--mask <file>] [--margin <n>] [--json] [--require-psnr <dB>] [--require-ghost <residual>]"

    /// The exit codes, for help and the manual.
    static let exitCodes = """
        0 measured, every --require bound met; 1 a bound failed, or an image
        could not be read or differs in size; 2 usage error.
        """

    /// The full help text (stdout).
    static var help: String {
        """
        OVERVIEW: \(abstract)

        PSNR (peak 1, over luma and over all channels), SSIM (Gaussian window
        11 × 11, σ 1.5) and the ghost residual are ImageMetrics' definitions.
        A gray image compared with a colour one is taken as three equal channels.

        USAGE: \(usage)

        OPTIONS:
        \(optionsHelp(specs))
        EXIT CODES:
          \(exitCodes.replacing("\n", with: "\n  "))

        EXAMPLES:
          make-scene --preset street --frames 8 --output scene
          stack --mode median -o out.png scene/frame_*.jpg
          stack compare out.png --truth scene/truth.png --mask scene/mask.png --require-ghost 0.02
        """
    }

    /// What to compare, and the bounds to check.
    struct Settings {
        var image: FilePath
        var truth: FilePath
        var mask: FilePath?
        var margin = 0
        var json = false
        var requirePSNR: Double?
        var requireGhost: Double?
    }

    /// The measures of one comparison.
    struct Scores {
        var psnrLuma: Double
        var psnrRGB: Double
        var ssim: Double
        /// Nil without a mask.
        var ghost: Double?
    }

    /// Parses, measures, prints; the exit code says whether the bounds held.
    static func main(_ arguments: [FilePath]) -> ExitCode {
        let terminal = Terminal(quiet: true)
        let settings: Settings
        do {
            guard let parsed = try parse(arguments) else {
                print(help)
                return .success
            }
            settings = parsed
        } catch {
            terminal.line("stack compare: error: \(error)")
            terminal.line("Usage: \(usage)")
            return .usage
        }
        do {
            let scores = try measure(settings)
            let failed = failures(scores, settings)
            print(settings.json ? json(scores, settings, failed: failed) : text(scores))
            for f in failed { terminal.line("stack compare: \(settings.image): \(f)") }
            return failed.isEmpty ? .success : .failure
        } catch {
            terminal.line("stack compare: error: \(error)")
            return .failure
        }
    }

    /// The settings `arguments` give, or nil for `--help`.
    static func parse(_ arguments: [FilePath]) throws -> Settings? {
        let args = try parseArguments(arguments, specs: specs)
        if args.flags.contains("--help") { return nil }
        guard let image = args.positionals.first else { throw UsageError(description: "no image given to compare") }
        guard args.positionals.count == 1 else {
            throw UsageError(description: "compare takes one image, got \(args.positionals.count)")
        }
        guard let truth = args.values["--truth"], !truth.isEmpty else { throw UsageError(description: "--truth <file> is required") }
        var s = Settings(image: image, truth: truth)
        s.mask = args.values["--mask"]
        s.json = args.flags.contains("--json")
        if let n = try args.value("--margin", { Int($0).flatMap { $0 >= 0 ? $0 : nil } }, else: {
            "--margin needs a whole number of pixels ≥ 0, got '\($0)'" }) { s.margin = n }
        s.requirePSNR = try args.value("--require-psnr", { Double($0).flatMap { $0.isFinite ? $0 : nil } }, else: {
            "--require-psnr needs a number of dB, got '\($0)'" })
        s.requireGhost = try args.value("--require-ghost", { Double($0).flatMap { $0 >= 0 && $0.isFinite ? $0 : nil } }, else: {
            "--require-ghost needs a residual ≥ 0 such as 0.02, got '\($0)'" })
        if s.requireGhost != nil && s.mask == nil {
            throw UsageError(description: "--require-ghost needs --mask (where the ghosts would be)")
        }
        return s
    }

    /// Reads the images and measures them.
    /// - Throws: `StackerError` for an unreadable file or one whose size differs from the image's.
    static func measure(_ s: Settings) throws -> Scores {
        var image = try ImageFile.read(s.image).image
        var truth = try ImageFile.read(s.truth).image
        try requireSize(of: truth, path: s.truth, like: image)
        if image.channels != truth.channels {
            image = threeChannels(image)
            truth = threeChannels(truth)
        }
        var mask: Plane?
        if let path = s.mask {
            let m = try ImageFile.read(path).image
            try requireSize(of: m, path: path, like: image)
            mask = m.luma
        }
        guard 2 * s.margin < image.width && 2 * s.margin < image.height else {
            throw StackerError.invalidInput(path: s.image.description,
                                            reason: "--margin \(s.margin) leaves nothing of a \(image.width)×\(image.height) image")
        }
        return Scores(psnrLuma: ImageMetrics.lumaPSNR(image, truth, border: s.margin),
                      psnrRGB: ImageMetrics.psnr(image, truth, border: s.margin),
                      ssim: ImageMetrics.ssim(image, truth, border: s.margin),
                      ghost: mask.map { ImageMetrics.ghostResidual(image, truth: truth, transientMask: $0, border: s.margin) })
    }

    /// Throws unless `other` (read from `path`) is as wide and tall as `image`.
    private static func requireSize(of other: Image, path: FilePath, like image: Image) throws {
        guard other.width == image.width && other.height == image.height else {
            throw StackerError.invalidInput(path: path.description,
                                            reason: "is \(other.width)×\(other.height), the image \(image.width)×\(image.height)")
        }
    }

    /// A gray image as three equal planes; a colour one as it is.
    private static func threeChannels(_ image: Image) -> Image {
        image.channels == 1 ? Image(width: image.width, height: image.height, planes: Array(repeating: image.planes[0], count: 3)) : image
    }

    /// One sentence per bound that failed.
    static func failures(_ scores: Scores, _ s: Settings) -> [String] {
        var out: [String] = []
        if let bound = s.requirePSNR, !(scores.psnrRGB >= bound) {
            out.append("PSNR \(fixedDecimals(scores.psnrRGB, 3)) dB is below --require-psnr \(bound)")
        }
        if let bound = s.requireGhost, let ghost = scores.ghost, !(ghost <= bound) {
            out.append("ghost residual \(fixedDecimals(ghost, 5)) is above --require-ghost \(bound)")
        }
        return out
    }

    /// Lines of `name: value`.
    static func text(_ r: Scores) -> String {
        var lines = ["psnr-luma: \(fixedDecimals(r.psnrLuma, 3)) dB", "psnr-rgb: \(fixedDecimals(r.psnrRGB, 3)) dB", "ssim: \(fixedDecimals(r.ssim, 5))"]
        if let g = r.ghost { lines.append("ghost: \(fixedDecimals(g, 5))") }
        return lines.joined(separator: "\n")
    }

    /// One JSON object: the files, the measures at full precision (an
    /// infinite PSNR, identical images, as null), and the bounds that failed.
    static func json(_ r: Scores, _ s: Settings, failed: [String]) -> String {
        let optional = { (x: Double?) in x.map(JSONText.number) ?? "null" }
        let fields = [
            "\"image\": \(JSONText.string(s.image.description))",
            "\"truth\": \(JSONText.string(s.truth.description))",
            "\"mask\": \(s.mask.map { JSONText.string($0.description) } ?? "null")",
            "\"margin\": \(s.margin)",
            "\"psnrLuma\": \(JSONText.number(r.psnrLuma))",
            "\"psnrRGB\": \(JSONText.number(r.psnrRGB))",
            "\"ssim\": \(JSONText.number(r.ssim))",
            "\"ghost\": \(optional(r.ghost))",
            "\"pass\": \(failed.isEmpty)",
            "\"failed\": [\(failed.map(JSONText.string).joined(separator: ", "))]",
        ]
        return "{ " + fields.joined(separator: ", ") + " }"
    }
}
