#if canImport(Glibc)
import Glibc
#endif
import Registration
import Stacker

/// Entry point: parse → validate → run; maps failures to the documented
/// exit codes. `arguments` are the bytes of `argv` after the program name.
func runStack(_ arguments: [FilePath]) -> ExitCode {
    let action: StackCommand.Action
    do {
        action = try StackCommand.parse(arguments)
    } catch {
        let t = Terminal(quiet: true)
        t.line("stack: error: \(error)")
        t.line("Usage: \(StackCommand.usage)")
        t.line("  See 'stack --help' for more information.")
        return .usage
    }
    switch action {
    case .help:
        print(StackCommand.help)
        return .success
    case .version:
        print("stack \(StackCommand.version)")
        return .success
    case .completion(let shell):
        print(CompletionScript.script(for: shell), terminator: "")
        return .success
    case .manual:
        print(ManualPage.text, terminator: "")
        return .success
    case .run(let settings):
        let terminal = Terminal(quiet: settings.quiet)
        do {
            try stackFrames(settings, terminal: terminal)
            return .success
        } catch let error as UsageError {
            terminal.line("stack: error: \(error)")
            terminal.line("Usage: \(StackCommand.usage)")
            return .usage
        } catch let error as StackerError {
            terminal.clearProgress()
            terminal.line("stack: error: \(error)")
            return error == .interrupted ? .interrupted : .failure
        } catch {
            terminal.clearProgress()
            terminal.line("stack: error: \(error)")
            return .failure
        }
    }
}

/// Stacks, writes the output (and report), prints warnings and a summary.
func stackFrames(_ given: StackCommand.Settings, terminal: Terminal) throws {
    var settings = given
    let expanded = try FolderExpansion.expand(given.inputs, recursive: given.recursive, terminal: terminal, quiet: given.quiet)
    settings.inputs = expanded.files
    let output = settings.outputFolder.map { OutputFolder.output(in: $0, firstInput: settings.inputs[0], format: settings.format) }
        ?? settings.output ?? OutputPath.implicit(firstInput: settings.inputs[0], format: settings.format)
    try OutputPath.refuseOverwritingInputs(output: output, inputs: settings.inputs)
    try FolderExpansion.refuseOutputAmongFrames(output, folders: expanded.folders, recursive: settings.recursive)
    if let report = settings.report, report == settings.beforeAfter {
        throw StackerError.invalidInput(path: report.description, reason: "the report and the before/after picture are the same file")
    }
    if let map = settings.rejectionMap, map == settings.report || map == settings.beforeAfter {
        throw StackerError.invalidInput(path: map.description, reason: "the rejection map and the report or before/after picture are the same file")
    }
    if let plot = settings.plot, [settings.report, settings.beforeAfter, settings.rejectionMap].contains(plot) {
        throw StackerError.invalidInput(path: plot.description, reason: "the plot and another output of the run are the same file")
    }
    if let map = settings.weightMap, [settings.report, settings.beforeAfter, settings.rejectionMap, settings.plot].contains(map) {
        throw StackerError.invalidInput(path: map.description, reason: "the weight map and another extra output are the same file")
    }
    for extra in [settings.report, settings.beforeAfter, settings.rejectionMap, settings.plot, settings.weightMap].compactMap({ $0 }) {
        try OutputPath.refuseOverwritingInputs(output: extra, inputs: settings.inputs)
        guard extra != output else {
            throw StackerError.invalidInput(path: extra.description, reason: "this file is the output itself; choose another name")
        }
    }
    if let folder = settings.outputFolder { try OutputFolder.make(folder) }
    Signals.install()
    var options = settings.options
    let frames = FrameSource.frames(in: settings.inputs)
    try FolderExpansion.requireTwoFrames(frames.count, folders: expanded.folders)
    try StackCommand.checkReference(options, frameCount: frames.count)
    if let file = settings.transforms.first {
        try TransformsFile.read(settings.transforms).apply(to: &options, frameCount: frames.count, path: file)
    }
    if settings.partial != nil { return try writePiece(settings, options: options, frames: frames, terminal: terminal) }
    options.temporaryDirectory = AtomicFile.folder(of: output)
    options.outputBitDepth = settings.depth ?? (ImageFormat.fromExtension(of: output) ?? .jpeg).stackDepth(reference: 8)
    let modeName = options.rejection.map { "reject \($0.name.rawValue)" } ?? options.mode.rawValue
    let progress = ProgressLine(style: settings.progress, terminal: terminal, modeName: modeName)
    var result = try stack(frames, options: options) { progress.report($0) }
    terminal.clearProgress()
    if !settings.quiet { for w in result.warnings { terminal.line("stack: warning: \(w)") } }
    let start = ContinuousClock.now
    try result.write(to: output, quality: settings.quality, depth: settings.depth)
    result.timings.addEncode(since: start)
    if let mapPath = settings.rejectionMap, let map = result.rejectionMap { try map.write(to: mapPath) }
    if let mapPath = settings.weightMap, let map = result.weightMap { try StackCommand.writeWeightMap(map, to: mapPath) }
    if let reportPath = settings.report { try result.report(output: output).write(to: reportPath) }
    if let plotPath = settings.plot { try AtomicFile.write(Array(FramePlot(result).svg.utf8), to: plotPath) }
    if let picture = settings.beforeAfter {
        let reference = try frames[result.referenceIndex].image(maxPixels: options.maxPixels)
        let beforeAfter = StackResult(image: .sideBySide(reference, result.image), frames: result.frames,
                                      referenceIndex: result.referenceIndex, metadata: result.metadata, options: options)
        try beforeAfter.write(to: picture, quality: settings.quality, depth: settings.depth)
    }
    if !settings.quiet {
        let used = result.frames.filter(\.used).count
        let note = settings.output == nil && settings.outputFolder == nil ? " (no --output given)" : ""
        let picture = settings.beforeAfter.map { "; before/after: \($0)" } ?? ""
        let drizzle = options.drizzle.map { ", drizzled ×\($0.scale) (\($0.kernel.rawValue), pixfrac \($0.pixfrac))" } ?? ""
        terminal.line("stack: wrote \(output)\(note): \(used) of \(result.frames.count) frames, \(modeName)\(drizzle)\(picture)")
    }
}

MemoryTuning.preferHeapForLargeBuffers()
BLASThreads.configure()
// `CommandLine.arguments` would replace bytes that are not UTF-8 in file
// names; the raw `argv` keeps them.
let arguments = (1..<max(1, Int(CommandLine.argc))).map { FilePath(cString: CommandLine.unsafeArgv[$0]!) }
// Subcommands (`stack compare …`) come from one table: `Subcommands.all`.
if let (subcommand, rest) = Subcommands.match(arguments) { exit(subcommand.run(rest).rawValue) }
exit(runStack(arguments).rawValue)
