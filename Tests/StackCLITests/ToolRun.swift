import Foundation

/// Runs a program for the CLI tests (`stack` itself, and bash, man,
/// xmllint, script to check what it generates) and captures what it did.
enum ToolRun {
    /// Runs `arguments[0]` (looked up in `PATH`) with the rest, extra
    /// `environment` added to this process's; stdin is empty.
    static func run(_ arguments: [String], environment: [String: String] = [:], in directory: String? = nil) throws -> CLIRun {
        try run(executable: "/usr/bin/env", arguments, environment: environment, in: directory, emptyInput: true)
    }

    /// Runs the program at `executable` with `arguments` in `directory`
    /// (stdin inherited unless `emptyInput`).
    static func run(executable: String, _ arguments: [String], environment: [String: String] = [:],
                    in directory: String? = nil, emptyInput: Bool = false) throws -> CLIRun {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        if !environment.isEmpty { p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if emptyInput { p.standardInput = FileHandle.nullDevice }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // Read both pipes before waiting so a chatty child cannot block.
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return CLIRun(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                      stderr: String(decoding: e, as: UTF8.self))
    }

    /// Every `--long-option` word in `text`, once each.
    static func longOptions(in text: String) -> Set<String> {
        var found = Set<String>()
        for word in text.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-") }) where word.hasPrefix("--") && word.count > 2 {
            found.insert(String(word))
        }
        return found
    }
}
