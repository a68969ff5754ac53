import Stacker

/// `stack merge -o OUT PIECE...`: joins the pieces shards wrote with
/// `--partial` (the average's partial sums, or row bands) into the output
/// image (`ShardMerge`).
enum MergeCommand {
    /// One line for help, the manual and completions.
    static let abstract = "Merge the pieces of a sharded stack (--partial) into the output image."

    /// The exit codes, for help and the manual.
    static let exitCodes = """
        0 done; 1 a piece is unreadable or does not fit, or the write failed;
        2 usage error; 130 interrupted, 143 terminated.
        """

    /// The USAGE line.
    static let usage = "stack merge -o <file> [--quality <1-100>] [--depth <8|16|32f>] <piece.fits> ..."

    /// Every option, in help order.
    static let specs: [OptionSpec] = [
        OptionSpec(names: ["--output", "-o"], valueName: "file",
                   help: "the merged image: .jpg/.jpeg, .png, .tif/.tiff, .heic/.heif/.hif or .fits/.fit/.fts (required)"),
        OptionSpec(names: ["--quality"], valueName: "1-100", help: "JPEG and HEIC quality (default: 95)"),
        OptionSpec(names: ["--depth"], valueName: "8|16|32f",
                   help: "bits per sample (default: the --depth the shards were given, else 8, as the format allows)"),
        OptionSpec(names: ["--quiet", "-q"], valueName: nil, help: "no summary"),
        OptionSpec(names: ["--help", "-h"], valueName: nil, help: "show this help"),
    ]

    /// The help text (stdout).
    static var help: String {
        """
        OVERVIEW: Merge the pieces of a sharded stack into the output image.

        Partial sums (stack --partial FILE --frames a:b) are added and divided:
        the average of all frames, within float rounding of a one-shot stack.
        Row bands (stack --partial FILE --rows i/N) are put in place: the
        one-shot image, byte for byte. Pieces of another run (grid, frames,
        reference, options), named twice, overlapping or missing are refused.
        See docs/cluster.md.

        USAGE: \(usage)

        OPTIONS:
        \(optionsHelp(specs))
        EXIT CODES: \(exitCodes)
        """
    }

    /// Parses, merges, writes; the exit code.
    static func run(_ arguments: [FilePath]) -> ExitCode {
        runSubcommand(arguments, usage: usage) { terminal in
            let args = try parseArguments(arguments, specs: specs)
            if args.flags.contains("--help") {
                print(help)
                return .success
            }
            guard let output = args.values["--output"], let format = ImageFormat.fromExtension(of: output) else {
                throw UsageError(description: "stack merge needs -o <file> with an image extension (.jpg, .png, .tif, .heic, .fits, …)")
            }
            let quality = try args.value("--quality", { Int($0).flatMap { (1...100).contains($0) ? $0 : nil } }, else: {
                "--quality needs a whole number from 1 to 100, got '\($0)'" }) ?? 95
            let depth = try args.value("--depth", { ["8": 8, "16": 16, "32f": 32][$0] }, else: {
                "--depth needs 8, 16 or 32f, got '\($0)'" })
            try StackCommand.checkDepth(depth, format: format)
            guard !args.positionals.isEmpty else { throw UsageError(description: "no pieces given") }
            try OutputPath.refuseOverwritingInputs(output: output, inputs: args.positionals)
            Signals.install()
            let result = try ShardMerge.merge(args.positionals)
            try result.write(to: output, quality: quality, depth: depth ?? result.options.outputBitDepth)
            if !args.flags.contains("--quiet") {
                terminal.line("stack: wrote \(output): \(args.positionals.count) pieces merged")
            }
            return .success
        }
    }
}
