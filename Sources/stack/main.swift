#if canImport(Glibc)
import Glibc
#endif
import Registration
import Stacker

/// Entry point: parse → validate → run; maps failures to the documented
/// exit codes. `arguments` are the bytes of `argv` after the program name.
func runStack(_ arguments: [FilePath]) -> ExitCode {
    if arguments.first == "effect" { return runEffect(Array(arguments.dropFirst())) }
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
func stackFrames(_ settings: StackCommand.Settings, terminal: Terminal) throws {
    let output = settings.output ?? OutputPath.implicit(firstInput: settings.inputs[0])
    try OutputPath.refuseOverwritingInputs(output: output, inputs: settings.inputs)
    if let report = settings.report, report == settings.beforeAfter {
        throw StackerError.invalidInput(path: report.description, reason: "the report and the before/after picture are the same file")
    }
    if let map = settings.rejectionMap, map == settings.report || map == settings.beforeAfter {
        throw StackerError.invalidInput(path: map.description, reason: "the rejection map and the report or before/after picture are the same file")
    }
    for extra in [settings.report, settings.beforeAfter, settings.rejectionMap].compactMap({ $0 }) {
        try OutputPath.refuseOverwritingInputs(output: extra, inputs: settings.inputs)
        guard extra != output else {
            throw StackerError.invalidInput(path: extra.description, reason: "this file is the output itself; choose another name")
        }
    }
    Signals.install()
    var options = settings.options
    let frames = FrameSource.frames(in: settings.inputs)
    try StackCommand.checkReference(options, frameCount: frames.count)
    if let file = settings.transforms {
        try TransformsFile.read(file).apply(to: &options, frameCount: frames.count, path: file)
    }
    options.temporaryDirectory = AtomicFile.folder(of: output)
    options.outputBitDepth = settings.depth ?? (ImageFormat.fromExtension(of: output) ?? .jpeg).stackDepth(reference: 8)
    let modeName = options.rejection.map { "reject \($0.name.rawValue)" } ?? options.mode.rawValue
    var result = try stack(frames, options: options) { p in
        switch p.stage {
        case .aligning: terminal.progress("stack: aligning \(p.completed)/\(p.total) \(p.path ?? "")")
        case .combining: terminal.progress("stack: combining \(p.total) frames (\(modeName))…")
        }
    }
    terminal.clearProgress()
    if !settings.quiet { for w in result.warnings { terminal.line("stack: warning: \(w)") } }
    let start = ContinuousClock.now
    try result.write(to: output, quality: settings.quality, depth: settings.depth)
    result.timings.addEncode(since: start)
    if let mapPath = settings.rejectionMap, let map = result.rejectionMap { try map.write(to: mapPath) }
    if let reportPath = settings.report { try result.report(output: output).write(to: reportPath) }
    if let picture = settings.beforeAfter {
        let reference = try frames[result.referenceIndex].image(maxPixels: options.maxPixels)
        let beforeAfter = StackResult(image: .sideBySide(reference, result.image), frames: result.frames,
                                      referenceIndex: result.referenceIndex, metadata: result.metadata, options: options)
        try beforeAfter.write(to: picture, quality: settings.quality, depth: settings.depth)
    }
    if !settings.quiet {
        let used = result.frames.filter(\.used).count
        let note = settings.output == nil ? " (no --output given)" : ""
        let picture = settings.beforeAfter.map { "; before/after: \($0)" } ?? ""
        terminal.line("stack: wrote \(output)\(note): \(used) of \(result.frames.count) frames, \(modeName)\(picture)")
    }
}

MemoryTuning.preferHeapForLargeBuffers()
BLASThreads.configure()
// `CommandLine.arguments` would replace bytes that are not UTF-8 in file
// names; the raw `argv` keeps them.
let arguments = (1..<max(1, Int(CommandLine.argc))).map { FilePath(cString: CommandLine.unsafeArgv[$0]!) }
exit(runStack(arguments).rawValue)
