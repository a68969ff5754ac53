import Foundation
import SceneGen
import Stacker
import TestSupport

/// Runs the built `stack` executable and captures what it did.
struct CLIRun {
    let status: Int32
    let stdout: String
    let stderr: String
}

enum CLIHarness {
    /// The `stack` binary under test: `$STACK_BIN` when set, else `stack` in
    /// the folder `swift build --show-bin-path` names for this package (the
    /// build the tests were built with). Looked up once per test process;
    /// when it is missing, every use throws an error saying how to build it,
    /// so each CLI test fails with that message and the other suites run on.
    static var binary: String {
        get throws(CLIHarnessError) { try lookup.get() }
    }

    private static let lookup = Result { () throws(CLIHarnessError) -> String in
        let given = ProcessInfo.processInfo.environment["STACK_BIN"]
        let path: String
        if let given { path = given } else { path = try buildFolder() + "/stack" }
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw CLIHarnessError("no `stack` executable at \(path): "
                                  + (given != nil ? "fix $STACK_BIN, or unset it" : "build it first (`swift build --build-tests` builds it with the tests)"))
        }
        return path
    }

    /// What `swift build --show-bin-path` prints, run in the package root
    /// with `$SWIFT` (default `swift`) and the build configuration of this
    /// test binary; an error when it fails or has not answered in 2 minutes
    /// (a SwiftPM that waited for the build folder's lock would never answer).
    private static func buildFolder() throws(CLIHarnessError) -> String {
        let swift = ProcessInfo.processInfo.environment["SWIFT"] ?? "swift"
        #if DEBUG
        let configuration = "debug"
        #else
        let configuration = "release"
        #endif
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [swift, "build", "--show-bin-path", "-c", configuration]
        p.currentDirectoryURL = URL(fileURLWithPath: TestFiles.packageRoot)
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        do {
            try p.run()
        } catch {
            throw CLIHarnessError("cannot run `\(swift) build --show-bin-path` in \(TestFiles.packageRoot): \(error)")
        }
        // The answer is one line, far less than a pipe holds, so the child
        // never blocks on a full pipe while this waits.
        let deadline = ContinuousClock.now + .seconds(120)
        while p.isRunning && ContinuousClock.now < deadline { usleep(20_000) }
        if p.isRunning {
            p.terminate()
            throw CLIHarnessError("`\(swift) build --show-bin-path` did not answer within 2 minutes")
        }
        p.waitUntilExit()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        let text = String(decoding: o, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard p.terminationStatus == 0, let last = text.split(separator: "\n").last else {
            throw CLIHarnessError("`\(swift) build --show-bin-path` exited with \(p.terminationStatus): "
                                  + String(decoding: e, as: UTF8.self))
        }
        return String(last)
    }

    /// Runs `stack` with `arguments` in `directory`; returns status and output.
    static func run(_ arguments: [String], in directory: String? = nil) throws -> CLIRun {
        try ToolRun.run(executable: try binary, arguments, in: directory)
    }

    /// A fresh empty folder under the system temporary directory.
    static func temporaryFolder(_ name: String = #function) throws -> String {
        try TestFiles.temporaryFolder("cli-" + name)
    }

    /// Renders a small street burst into `folder`; returns the frame paths.
    static func makeBurst(in folder: String, frames: Int = 5, width: Int = 256, height: Int = 192,
                          seed: UInt64 = 7, quality: Int = 95) throws -> [String] {
        try SceneBurst(SceneBurst.street(width: width, height: height, frames: frames, seed: seed),
                       quality: quality, in: folder).paths
    }

    /// The files in `folder`.
    static func listing(_ folder: String) -> [String] { TestFiles.listing(folder) }
}

/// Why the harness cannot run the binary under test.
struct CLIHarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
