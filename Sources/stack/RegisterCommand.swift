import Stacker

/// `stack register -o transforms.json [--frames a:b] FRAME...`: registers
/// the frames to the reference and writes each frame's record (transform,
/// score, acceptance, reason) for `stack --transforms`, without stacking.
/// Takes the stack command's options (alignment, reference, limits).
enum RegisterCommand {
    /// One line for help, the manual and completions.
    static let abstract = "Register every frame to the reference and write the transforms, without stacking."

    /// Its own options; it also takes the stack command's (`StackCommand.specs`).
    static let specs: [OptionSpec] = [
        OptionSpec(names: ["--output", "-o"], valueName: "file.json", help: "where the transforms are written (required)"),
        OptionSpec(names: ["--frames"], valueName: "a:b", help: "only frames a to b − 1 (from 0), against the same reference"),
    ]

    /// Its options and the stack command's it takes, each once (for the
    /// manual and completions).
    static var allSpecs: [OptionSpec] {
        let own = Set(specs.flatMap(\.names))
        return specs + StackCommand.specs.filter { $0.names.allSatisfy { !own.contains($0) } }
    }

    /// The exit codes, for the manual.
    static let exitCodes = "0 done; 1 the work failed; 2 usage error."

    /// The USAGE line.
    static let usage = "stack register -o <transforms.json> [--frames a:b] [<stack options>] <frame> <frame> ..."

    /// The help text (stdout).
    static var help: String {
        """
        OVERVIEW: Register every frame to the reference frame and write the
        transforms, without stacking; stack them later with --transforms.

        With --frames a:b only frames a to b − 1 are registered, against the
        same reference (give every frame each time): slices registered apart
        are joined by naming each with --transforms. See docs/cluster.md.

        USAGE: \(usage)

        OPTIONS:
          -o, --output <file.json>  where the transforms are written (required)
          --frames <a:b>            only frames a to b − 1 (from 0)
          and the options of 'stack --help' that decide registration:
          --align, --reference, --star-sigma, --min-score, --weights, calibration,
          --normalize, --skip-bad, --max-pixels, --threads, --quiet;
          and --mode (with --keep, --reject): frames are decoded as that mode
          decodes them, so give the mode the shards will use and the transforms
          are the ones a one-shot stack in that mode measures, bit for bit.

        EXIT CODES: as for stack: 0 done, 1 the work failed, 2 usage error.
        """
    }

    /// Parses, registers, writes; the exit code.
    static func run(_ arguments: [FilePath]) -> ExitCode {
        runSubcommand(arguments, usage: usage) { terminal in
            var rest: [FilePath] = []
            var output: FilePath?
            var i = 0
            while i < arguments.count {
                let arg = arguments[i]
                i += 1
                if arg == "--" { rest += arguments[(i - 1)...]; break }
                if arg == "-o" || arg == "--output" {
                    guard i < arguments.count else { throw UsageError(description: "missing value for '\(arg) <file.json>'") }
                    output = arguments[i]
                    i += 1
                } else if arg.bytes.starts(with: Array("--output=".utf8)) {
                    output = FilePath(bytes: Array(arg.bytes.dropFirst(9)))
                } else {
                    rest.append(arg)
                }
            }
            if rest.contains("--help") || rest.contains("-h") {
                print(help)
                return .success
            }
            guard let output, output.lowercasedExtension == "json" else {
                throw UsageError(description: "stack register needs -o <file.json>, where the transforms are written")
            }
            guard case .run(let settings) = try StackCommand.parse(rest) else {
                throw UsageError(description: "stack register takes frames and registration options")
            }
            guard settings.partial == nil, settings.transforms.isEmpty else {
                throw UsageError(description: "stack register registers: drop --partial and --transforms")
            }
            try OutputPath.refuseOverwritingInputs(output: output, inputs: settings.inputs)
            Signals.install()
            var options = settings.options
            let frames = FrameSource.frames(in: settings.inputs)
            try StackCommand.checkReference(options, frameCount: frames.count)
            options.temporaryDirectory = AtomicFile.folder(of: output)
            let result = try register(frames, options: options) { p in
                terminal.progress("stack: registering \(p.completed)/\(p.total) \(p.path ?? "")")
            }
            terminal.clearProgress()
            let range = options.frameRange ?? 0..<frames.count
            let json = TransformsFile.json(records: result.frames[range], reference: result.referenceIndex,
                                           first: range.lowerBound, alignment: options.alignment)
            try AtomicFile.write(Array(json.utf8), to: output)
            if !settings.quiet {
                for w in result.warnings where !w.contains(": skipped: outside the frames") { terminal.line("stack: warning: \(w)") }
                let used = result.frames[range].filter(\.used).count
                terminal.line("stack: wrote \(output): \(used) of \(range.count) frames registered")
            }
            return .success
        }
    }
}

/// Runs a subcommand's `body` with a terminal (quiet under `-q`) and gives
/// its exit code: a `UsageError` is printed with `usage` (2), any other
/// error as `stack: error: …` (130 when interrupted, else 1).
func runSubcommand(_ arguments: [FilePath], usage: String, _ body: (Terminal) throws -> ExitCode) -> ExitCode {
    let terminal = Terminal(quiet: arguments.contains("-q") || arguments.contains("--quiet"))
    do {
        return try body(terminal)
    } catch let error as UsageError {
        terminal.line("stack: error: \(error)")
        terminal.line("Usage: \(usage)")
        return .usage
    } catch {
        terminal.clearProgress()
        terminal.line("stack: error: \(error)")
        return (error as? StackerError) == .interrupted ? .interrupted : .failure
    }
}
