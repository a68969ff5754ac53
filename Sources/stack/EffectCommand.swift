#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization
import Stacker

/// `stack effect`: applies a depth- or matte-driven effect to every photo
/// given (parse → validate → run), one photo per core.
struct EffectCommand {
    /// One-line abstract shown at the top of help.
    static let abstract = "Apply a depth- or matte-driven effect to portrait photos."

    /// Every option, in help order.
    static let specs: [OptionSpec] = [
        OptionSpec(names: ["--effect"], valueName: "name",
                   help: "spotlight | highlight | blur | comic | greenscreen | mask (default: blur; may also be given as the first argument)"),
        OptionSpec(names: ["--focus"], valueName: "auto|0-1",
                   help: "the nearness the mask is centred on, 1 = nearest; auto = the nearest large object (default: auto)"),
        OptionSpec(names: ["--mask"], valueName: "band|high-pass",
                   help: "band: depths within --width of the focus; high-pass: everything nearer than the focus (default: band)"),
        OptionSpec(names: ["--width"], valueName: "w", help: "width of the band in nearness, 0 to 1 (default: 0.1)"),
        OptionSpec(names: ["--slope"], valueName: "s", help: "the mask falls from 1 to 0 over 1/s beyond the band (default: 4)"),
        OptionSpec(names: ["--invert"], valueName: nil, help: "apply the effect to the subject instead of the rest"),
        OptionSpec(names: ["--matte"], valueName: "name",
                   help: "use the photo's portrait matte as the mask: person | hair | skin | teeth | glasses"),
        OptionSpec(names: ["--depth-map"], valueName: "file",
                   help: "a depth image to use instead of the photo's own (white = near); repeat it once per photo, in the same order"),
        OptionSpec(names: ["--strength"], valueName: "0-1", help: "spotlight: how much the background is darkened (default: 0.75)"),
        OptionSpec(names: ["--blur-radius"], valueName: "px",
                   help: "blur: the largest radius in pixels (default: 1.5% of the photo's longer side)"),
        OptionSpec(names: ["--colour"], valueName: "#RRGGBB", help: "greenscreen: the background colour (default: #00FF00)"),
        OptionSpec(names: ["--background"], valueName: "file", help: "greenscreen: a background image instead of the colour"),
        OptionSpec(names: ["--output", "-o"], valueName: "file|folder/",
                   help: "output file (one photo only) or folder; in a folder each output is <name>-<effect>.<ext of the photo> (png when that format is not written), or <name>-<effect>-2.<ext>, -3 … when that name is taken: no file is replaced (default: the current folder)"),
        OptionSpec(names: ["--quality"], valueName: "1-100", help: "JPEG and HEIC quality (default: 95)"),
        OptionSpec(names: ["--report"], valueName: "file.json", help: "write a JSON report: per photo its output, focus and mask source, or why it was skipped"),
        OptionSpec(names: ["--strict"], valueName: nil, help: "a photo without depth data (or the matte asked for) is an error, not a warning"),
        OptionSpec(names: ["--threads"], valueName: "n", help: "photos processed at once (default: number of cores)"),
        OptionSpec(names: ["--quiet", "-q"], valueName: nil, help: "no warnings or summary"),
        OptionSpec(names: ["--help", "-h"], valueName: nil, help: "show this help"),
    ]

    /// The usage line.
    static let usage = "stack effect [--effect <name>] [--focus auto|<0-1>] [--output <file|folder/>] [<options>] <photo> ..."

    /// Full help text.
    static var help: String {
        """
        OVERVIEW: \(abstract)

        Reads each photo's depth map (HEIC depth or disparity image, the MPF
        disparity image of an iPhone portrait JPEG, Google's GDepth XMP, or
        --depth-map) or portrait matte, makes a mask from it and blends the photo
        with a filtered version through it. Outputs keep the photo's EXIF and ICC
        profile and are written atomically. A photo without depth data is skipped
        with a warning (an error under --strict).

        USAGE: \(usage)

        OPTIONS:
        \(optionsHelp(specs))
        EXIT CODES: \(exitCodes)
        """
    }

    /// The exit codes, for help and the manual.
    static let exitCodes = """
        0 every photo written or skipped with a warning, at least one
        written; 1 a photo failed or none was written; 2 usage error.
        """

    /// A parsed `stack effect` command line.
    struct Settings: Sendable {
        var photos: [FilePath] = []
        var depthMaps: [FilePath] = []
        var options = EffectOptions()
        var output: FilePath?
        var quality = 95
        var report: FilePath?
        var strict = false
        var threads = Platform.processorCount
        var quiet = false
    }

    /// What the command line asks for.
    enum Action {
        case help
        case run(Settings)
    }

    /// Parses `arguments` (after `effect`).
    static func parse(_ arguments: [FilePath]) throws -> Action {
        let args = try parseArguments(arguments, specs: specs)
        if args.flags.contains("--help") { return .help }
        var s = Settings()
        var photos = args.positionals
        if let name = args["--effect"] {
            guard let effect = DepthEffect(rawValue: name) else { throw UsageError(description: "unknown effect '\(name)' (\(effectNames))") }
            s.options.effect = effect
        } else if let first = photos.first?.string, let effect = DepthEffect(rawValue: first) {
            s.options.effect = effect
            photos.removeFirst()
        }
        guard !photos.isEmpty else { throw UsageError(description: "no photos given") }
        s.photos = photos
        if let focus = args["--focus"], focus != "auto" {
            guard let v = Float(focus), (0...1).contains(v) else { throw UsageError(description: "--focus needs auto or a number from 0 to 1, got '\(focus)'") }
            s.options.focus = .value(v)
        }
        if let shape = try args.value("--mask", { EffectMask.Shape(rawValue: $0) }, else: { "--mask needs band or high-pass, got '\($0)'" }) {
            s.options.shape = shape
        }
        if let w = try args.value("--width", unitInterval, else: { "--width needs a number from 0 to 1, got '\($0)'" }) { s.options.width = w }
        if let v = try args.value("--slope", { Float($0).flatMap { $0 > 0 && $0.isFinite ? $0 : nil } }, else: {
            "--slope needs a positive number, got '\($0)'" }) { s.options.slope = v }
        s.options.invert = args.flags.contains("--invert")
        s.options.matte = try args.value("--matte", { Matte(rawValue: $0) }, else: {
            "--matte needs one of \(Matte.allCases.map(\.rawValue).joined(separator: ", ")), got '\($0)'" })
        s.depthMaps = args.lists["--depth-map"] ?? []
        guard s.depthMaps.isEmpty || s.depthMaps.count == s.photos.count else {
            throw UsageError(description: "--depth-map given \(s.depthMaps.count) times for \(s.photos.count) photos; give one per photo")
        }
        if let v = try args.value("--strength", unitInterval, else: { "--strength needs a number from 0 to 1, got '\($0)'" }) {
            s.options.settings.strength = v
        }
        if let v = try args.value("--blur-radius", { Float($0).flatMap { $0 >= 0 && $0 <= 1000 ? $0 : nil } }, else: {
            "--blur-radius needs a number of pixels from 0 to 1000, got '\($0)'" }) { s.options.settings.blurRadius = v }
        if let c = try args.value("--colour", hexColour, else: { "--colour needs #RRGGBB, got '\($0)'" }) { s.options.settings.colour = c }
        if let background = args.values["--background"] {
            s.options.settings.background = try ImageFile.read(background).image
        }
        s.output = args.values["--output"]
        if let q = try args.value("--quality", { Int($0).flatMap { (1...100).contains($0) ? $0 : nil } }, else: {
            "--quality needs a whole number from 1 to 100, got '\($0)'" }) { s.quality = q }
        s.report = args.values["--report"]
        s.strict = args.flags.contains("--strict")
        if let n = try args.value("--threads", { Int($0).flatMap { (1...1024).contains($0) ? $0 : nil } }, else: {
            "--threads needs a whole number from 1 to 1024, got '\($0)'" }) { s.threads = n }
        s.quiet = args.flags.contains("--quiet")
        return .run(s)
    }

    static var effectNames: String { DepthEffect.allCases.map(\.rawValue).joined(separator: " | ") }

    static func unitInterval(_ text: String) -> Float? { Float(text).flatMap { (0...1).contains($0) ? $0 : nil } }

    /// `#RRGGBB` (the `#` optional) as 0…1 components.
    static func hexColour(_ text: String) -> (Float, Float, Float)? {
        let hex = text.hasPrefix("#") ? String(text.dropFirst()) : text
        guard hex.count == 6, let v = UInt32(hex, radix: 16) else { return nil }
        return (Float(v >> 16 & 0xFF) / 255, Float(v >> 8 & 0xFF) / 255, Float(v & 0xFF) / 255)
    }

    /// Where each photo's output goes, in photo order: `output` itself for
    /// one photo when it is not a folder; else `<name>-<effect>.<ext>` in
    /// the folder (the current one without `--output`), or the first free
    /// `<name>-<effect>-N.<ext>` when that exists or another photo of the
    /// run (same name in another folder) already has it, so an output in a
    /// folder never replaces a file (`OutputPath.firstFree`).
    static func outputPaths(settings s: Settings) -> [FilePath] {
        if let output = s.output, s.photos.count == 1, !OutputFolder.isFolder(output) { return [output] }
        var taken = Set<FilePath>()
        return s.photos.map { photo in
            var name = photo.lastComponent.bytes
            var ext = "png"
            if let given = photo.lowercasedExtension, ImageFormat.fromExtension(of: photo) != nil, given != "fits", given != "fit", given != "fts" {
                ext = given
                name.removeLast(given.utf8.count + 1)
            } else if let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > 0 {
                name.removeSubrange(dot...)
            }
            let path = OutputPath.firstFree(stem: name + Array("-\(s.options.effect.rawValue)".utf8), ext: ext,
                                            in: s.output ?? ".", taken: taken)
            taken.insert(path)
            return path
        }
    }
}

/// What happened to one photo.
enum EffectFileResult: Sendable {
    case written(FilePath, PortraitEffect.Outcome)
    case skipped(String)
    case failed(String)
}

/// Entry point of `stack effect`; `arguments` are those after `effect`.
func runEffect(_ arguments: [FilePath]) -> ExitCode {
    let settings: EffectCommand.Settings
    do {
        switch try EffectCommand.parse(arguments) {
        case .help:
            print(EffectCommand.help)
            return .success
        case .run(let s): settings = s
        }
    } catch let error as UsageError {
        let t = Terminal(quiet: true)
        t.line("stack effect: error: \(error)")
        t.line("Usage: \(EffectCommand.usage)")
        t.line("  See 'stack effect --help' for more information.")
        return .usage
    } catch {
        // An unreadable --background.
        Terminal(quiet: true).line("stack effect: error: \(error)")
        return .failure
    }
    let terminal = Terminal(quiet: settings.quiet)
    let outputs = EffectCommand.outputPaths(settings: settings)
    do {
        for output in outputs { try OutputPath.refuseOverwritingInputs(output: output, inputs: settings.photos + settings.depthMaps) }
        if let report = settings.report {
            try OutputPath.refuseOverwritingInputs(output: report, inputs: settings.photos + settings.depthMaps + outputs)
        }
        // An output folder is made (one level) as the stacking command makes its own.
        if let folder = settings.output, outputs != [folder] { try OutputFolder.make(folder) }
    } catch {
        terminal.line("stack effect: error: \(error)")
        return .failure
    }
    Signals.install()
    let results = Mutex<[Int: EffectFileResult]>([:])
    let next = Atomic<Int>(0)
    let count = settings.photos.count
    let workers = max(1, min(settings.threads, count))
    DispatchQueue.concurrentPerform(iterations: workers) { _ in
        while true {
            let i = next.add(1, ordering: .relaxed).oldValue
            guard i < count else { break }
            let result = applyEffect(photo: i, output: outputs[i], settings: settings, encoderThreads: workers == 1 ? settings.threads : 1)
            results.withLock { $0[i] = result }
        }
    }
    let all = results.withLock { r in (0..<count).map { r[$0]! } }
    var written = 0, failed = false
    for (photo, result) in zip(settings.photos, all) {
        switch result {
        case .written: written += 1
        case .skipped(let why):
            if !settings.quiet { terminal.line("stack effect: warning: \(photo): \(why); skipped") }
        case .failed(let why):
            failed = true
            terminal.line("stack effect: error: \(why)")
        }
    }
    if let report = settings.report {
        do {
            try effectReport(settings, all).write(to: report)
        } catch {
            terminal.line("stack effect: error: \(error)")
            failed = true
        }
    }
    if !settings.quiet {
        terminal.line("stack effect: wrote \(written) of \(count) photos (\(settings.options.effect.rawValue))")
    }
    return failed || written == 0 ? .failure : .success
}

/// Applies the effect to photo `i` and writes it; never throws.
func applyEffect(photo i: Int, output: FilePath, settings s: EffectCommand.Settings, encoderThreads: Int) -> EffectFileResult {
    let photo = s.photos[i]
    do {
        guard let outcome = try PortraitEffect.apply(to: photo, depthMap: s.depthMaps.isEmpty ? nil : s.depthMaps[i], options: s.options) else {
            let what = s.options.matte.map { "no \($0.rawValue) matte" } ?? "no depth data"
            if s.strict { return .failed(StackerError.invalidInput(path: photo.description, reason: what).description) }
            return .skipped(what)
        }
        try outcome.write(to: output, quality: s.quality, threads: encoderThreads)
        return .written(output, outcome)
    } catch {
        return .failed("\(error)")
    }
}

/// The report of a run, one entry per photo.
func effectReport(_ s: EffectCommand.Settings, _ results: [EffectFileResult]) -> EffectReport {
    EffectReport(effect: s.options.effect, entries: zip(s.photos, results).map { photo, result in
        switch result {
        case .written(let output, let outcome):
            return .written(photo: photo.description, output: output.description, focus: outcome.focus, maskSource: outcome.maskSource)
        case .skipped(let why): return .skipped(photo: photo.description, reason: why)
        case .failed(let why): return .failed(photo: photo.description, error: why)
        }
    })
}
