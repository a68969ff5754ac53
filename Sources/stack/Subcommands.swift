import Stacker

/// The subcommands `stack NAME …` runs instead of stacking. Adding one is
/// one entry here: its name, a one-line abstract (shown in help, the manual
/// and completions), its option table and exit codes (the manual, the
/// completions), and a function from the arguments after the name to an
/// exit code. A first argument that names none of these is a frame, as before
/// (`./compare` stacks a file called `compare`).
enum Subcommands {
    /// One subcommand.
    struct Entry: Sendable {
        /// The word after `stack`.
        let name: String
        /// What it does, in one line.
        let abstract: String
        /// Its options, for completions and the manual.
        let specs: [OptionSpec]
        /// What its exit codes mean, for the manual.
        let exitCodes: String
        /// Runs it on the arguments after `name`.
        let run: @Sendable ([FilePath]) -> ExitCode
    }

    /// Every subcommand, in help order.
    static let all: [Entry] = [
        Entry(name: "compare", abstract: CompareCommand.abstract, specs: CompareCommand.specs,
              exitCodes: CompareCommand.exitCodes, run: CompareCommand.main),
        Entry(name: "register", abstract: RegisterCommand.abstract, specs: RegisterCommand.allSpecs,
              exitCodes: RegisterCommand.exitCodes, run: RegisterCommand.run),
        Entry(name: "merge", abstract: MergeCommand.abstract, specs: MergeCommand.specs,
              exitCodes: MergeCommand.exitCodes, run: MergeCommand.run),
        Entry(name: "effect", abstract: EffectCommand.abstract, specs: EffectCommand.specs,
              exitCodes: EffectCommand.exitCodes, run: runEffect),
    ]

    /// The subcommand `arguments` start with, and the arguments after it; nil to stack.
    static func match(_ arguments: [FilePath]) -> (Entry, [FilePath])? {
        guard let first = arguments.first, let entry = all.first(where: { FilePath($0.name) == first }) else { return nil }
        return (entry, Array(arguments.dropFirst()))
    }
}
