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
    /// The `stack` binary: `$STACK_BIN`, else the debug build next to this package.
    static var binary: String {
        if let env = ProcessInfo.processInfo.environment["STACK_BIN"] { return env }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/stack").path
    }

    /// Runs `stack` with `arguments` in `directory`; returns status and output.
    static func run(_ arguments: [String], in directory: String? = nil) throws -> CLIRun {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = arguments
        if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
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
