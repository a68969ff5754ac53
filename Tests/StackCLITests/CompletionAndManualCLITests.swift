import Foundation
import Testing

/// Completion scripts and the manual page come from the option table that
/// `--help` prints: loaded in the real shells and rendered by `man`.
@Suite("stack: completion scripts and the manual page")
struct CompletionAndManualCLITests {
    /// Writes `stack --generate-completion-script shell` to `dir` and returns its path.
    static func script(_ shell: String, in dir: String) throws -> String {
        let run = try CLIHarness.run(["--generate-completion-script", shell])
        #expect(run.status == 0, "\(run.stderr)")
        let path = dir + "/stack." + shell
        try Data(run.stdout.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The long options the OPTIONS section of `stack SUBCOMMAND --help` lists.
    static func optionsInHelp(_ subcommand: [String]) throws -> Set<String> {
        let help = try CLIHarness.run(subcommand + ["--help"]).stdout
        let section = help.components(separatedBy: "OPTIONS:").last!.components(separatedBy: "EXIT CODES:")[0]
        let options = ToolRun.longOptions(in: section)
        #expect(options.count >= 5, "\(help)")
        return options
    }

    /// What bash's completion function offers for the words `line` (the last one being completed).
    static func bashCompletions(_ script: String, _ line: [String]) throws -> [String] {
        let words = line.map { "'\($0)'" }.joined(separator: " ")
        let run = try ToolRun.run(["bash", "--norc", "-c",
                                   "source '\(script)'; COMP_WORDS=(\(words)); COMP_CWORD=\(line.count - 1); _stack; printf '%s\\n' \"${COMPREPLY[@]}\""])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        return run.stdout.split(separator: "\n").map(String.init)
    }

    @Test("bash: stack --mo<TAB> completes to --mode, values and subcommands complete, and every --help option is offered")
    func bash() throws {
        let dir = try CLIHarness.temporaryFolder()
        let script = try Self.script("bash", in: dir)
        #expect(try Self.bashCompletions(script, ["stack", "--mo"]) == ["--mode"])
        #expect(try Self.bashCompletions(script, ["stack", "--mode", ""]) == ["average", "median", "mode", "sigma-clip"])
        #expect(try Self.bashCompletions(script, ["stack", "--progress", "j"]) == ["json"])
        #expect(try Self.bashCompletions(script, ["stack", "--keep-by", ""]) == ["score", "fwhm", "roundness", "stars", "background"])
        #expect(try Self.bashCompletions(script, ["stack", "compare", "--re"]) == ["--require-psnr", "--require-ghost"])
        #expect(try Self.bashCompletions(script, ["stack", "comp"]).contains("compare"))
        let offered = Set(try Self.bashCompletions(script, ["stack", "--"]))
        let inHelp = try Self.optionsInHelp([])
        #expect(!inHelp.isEmpty)
        #expect(inHelp.subtracting(offered).isEmpty, "missing from completions: \(inHelp.subtracting(offered).sorted())")
    }

    @Test("zsh loads its script; fish completes stack --mo to --mode")
    func zshAndFish() throws {
        let dir = try CLIHarness.temporaryFolder()
        let zsh = try Self.script("zsh", in: dir)
        let parse = try ToolRun.run(["zsh", "-n", zsh])
        #expect(parse.status == 0, "\(parse.stderr)")
        let fish = try Self.script("fish", in: dir)
        let run = try ToolRun.run(["fish", "--no-config", "-c", "source '\(fish)'; complete -C 'stack --mo'; complete -C 'stack compare --tr'"])
        #expect(run.status == 0, "\(run.stderr)")
        let firstWords = run.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
        #expect(firstWords == ["--mode", "--truth"], "\(run.stdout)")
    }

    @Test("the manual renders with man -l without warnings and lists every option of --help and the subcommands")
    func manual() throws {
        let dir = try CLIHarness.temporaryFolder()
        let page = try CLIHarness.run(["--generate-manual"])
        #expect(page.status == 0)
        let path = dir + "/stack.1"
        try Data(page.stdout.utf8).write(to: URL(fileURLWithPath: path))
        let man = try ToolRun.run(["man", "--warnings", "-l", path], environment: ["MANWIDTH": "80", "MANPAGER": "cat", "PAGER": "cat"])
        #expect(man.status == 0, "\(man.stderr)")
        #expect(man.stderr.isEmpty, "man warned: \(man.stderr)")
        #expect(man.stdout.contains("STACK(1)") && man.stdout.contains("EXIT STATUS"), "\(man.stdout.prefix(400))")
        // Rendered text hyphenates at line ends; compare the words joined back.
        let rendered = ToolRun.longOptions(in: man.stdout.replacingOccurrences(of: "‐\n", with: "").replacingOccurrences(of: "-\n", with: ""))
        let options = try Self.optionsInHelp([])
        #expect(options.subtracting(rendered).isEmpty, "missing from the manual: \(options.subtracting(rendered).sorted())")
        let compare = try Self.optionsInHelp(["compare"])
        #expect(compare.subtracting(rendered).isEmpty, "compare options missing: \(compare.subtracting(rendered).sorted())")
    }
}
