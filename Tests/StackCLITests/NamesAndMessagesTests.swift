import Foundation
import Glibc
import Stacker
import Testing

/// File names the way the system has them, and what the CLI prints about
/// them: names that are not UTF-8, names holding control characters,
/// files that are not regular files, and the star-alignment advice.
@Suite("stack: file names, messages and special files")
struct NamesAndMessagesTests {
    /// `café` with a Latin-1 `é` (byte 0xE9): no `String` spells it.
    static let latin1 = Array("caf".utf8) + [0xE9]

    @Test("a frame, output, report and calibration folder named in Latin-1 work, and messages show \\xE9")
    func latin1Names() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = try CLIHarness.makeBurst(in: dir, frames: 3, width: 128, height: 96)
        let root = Array(dir.utf8) + Array("/".utf8)
        let frame = root + Self.latin1 + Array(".jpg".utf8)
        try RawFile.write(frame, bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: frames[0]))))
        let output = root + Array("out-".utf8) + Self.latin1 + Array(".png".utf8)
        let report = root + Self.latin1 + Array(".json".utf8)

        let run = try RawRun.start([frame, Array(frames[1].utf8), Array(frames[2].utf8),
                                    Array("-o".utf8), output, Array("--report=".utf8) + report])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(RawFile.exists(output) && RawFile.exists(report), "stderr: \(run.stderr)")
        #expect(run.stderr.contains("out-caf\\xE9.png"), "stderr: \(run.stderr)")
        let json = String(decoding: try RawFile.read(report), as: UTF8.self)
        #expect(json.contains("caf\\\\xE9.jpg"), "report: \(json)")
        #expect(try ImageFile.read(FilePath(bytes: output)).image.width == 128)

        // A calibration folder named in Latin-1 holding a Latin-1 file:
        // listed and read by its bytes.
        let folder = root + Array("bias-".utf8) + Self.latin1
        #expect(folder.withCString { mkdir($0, 0o755) } == 0)
        let master = try ImageFile.read(frames[0]).image
        try ImageFile.write(Image(width: 128, height: 96, channels: master.channels, repeating: 0.01),
                            to: FilePath(bytes: folder + Array("/".utf8) + Self.latin1 + Array(".png".utf8)))
        let calibrated = try RawRun.start([Array("--align=none".utf8), Array("--bias".utf8), folder,
                                           Array("-o".utf8), root + Array("calibrated.png".utf8),
                                           frame, Array(frames[1].utf8)])
        #expect(calibrated.status == 0, "stderr: \(calibrated.stderr)")

        // A missing Latin-1 name is named with the escape, not U+FFFD.
        let missing = try RawRun.start([frame, root + Array("missing-".utf8) + Self.latin1 + Array(".jpg".utf8),
                                        Array("-o".utf8), root + Array("never.jpg".utf8)])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("missing-caf\\xE9.jpg: cannot open the file"), "stderr: \(missing.stderr)")
        #expect(!missing.stderr.contains("\u{FFFD}"))
    }

    @Test("FilePath keeps every byte and shows only the stray ones as \\xHH")
    func filePathBytes() {
        // "cé" in UTF-8, a Latin-1 é, "/", a cut-off "€" (E2 82 of E2 82 AC), "x".
        let bytes: [UInt8] = [0x63, 0xC3, 0xA9, 0xE9, 0x2F, 0xE2, 0x82, 0x78]
        let path = FilePath(bytes: bytes)
        #expect(path.bytes == bytes && path.string == nil)
        #expect(path.description == "cé\\xE9/\\xE2\\x82x")
        #expect(path.withCString { p in (0...bytes.count).map { UInt8(bitPattern: p[$0]) } } == bytes + [0])
        #expect(path.folder == FilePath(bytes: bytes[..<4]) && path.lastComponent == FilePath(bytes: bytes[5...]))
        #expect(path.folder.appending(path.lastComponent) == path)
        #expect(FilePath("a.jpg").folder == "." && FilePath("/a.jpg").folder == "/")
        #expect(FilePath(bytes: Array("x.JP".utf8) + [0x47]).lowercasedExtension == "jpg")
        #expect(FilePath("café.png").string == "café.png" && FilePath("café.png").description == "café.png")
    }

    @Test("a bad file whose name holds a newline and an escape gives one escaped stderr line")
    func controlCharactersInNames() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = try CLIHarness.makeBurst(in: dir, frames: 2, width: 128, height: 96)
        let bad = dir + "/bad\n\u{1B}[31mname\t.jpg"
        try Data("not an image\n".utf8).write(to: URL(fileURLWithPath: bad))
        let shown = "bad\\n\\x1B[31mname\\t.jpg"

        let failed = try CLIHarness.run(frames + [bad, "-o", dir + "/out.jpg"])
        #expect(failed.status == 1)
        let lines = failed.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty, "one line expected: \(failed.stderr)")
        #expect(lines[0].hasPrefix("stack: error: ") && lines[0].contains(shown), "stderr: \(failed.stderr)")
        #expect(!failed.stderr.contains("\u{1B}") && !failed.stderr.contains("\t"))

        // The same name in a warning: every line is a whole message.
        let skipped = try CLIHarness.run(frames + [bad, "--skip-bad", "-o", dir + "/out.jpg"])
        #expect(skipped.status == 0, "stderr: \(skipped.stderr)")
        let warnings = skipped.stderr.split(separator: "\n")
        #expect(warnings.allSatisfy { $0.hasPrefix("stack: ") }, "stderr: \(skipped.stderr)")
        #expect(warnings.contains { $0.hasPrefix("stack: warning: ") && $0.contains(shown) }, "stderr: \(skipped.stderr)")
    }

    @Test("a named pipe as a frame or a dark is refused at once, not waited on")
    func fifoIsRefused() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = try CLIHarness.makeBurst(in: dir, frames: 2, width: 128, height: 96)
        let fifo = dir + "/pipe.jpg"
        #expect(mkfifo(fifo, 0o644) == 0)
        let out = Array((dir + "/out.jpg").utf8)
        for arguments in [[fifo] + frames, frames + [fifo], ["--dark", fifo] + frames] {
            // No writer ever opens the pipe: a regression blocks in open and is killed here.
            let run = try RawRun.start(arguments.map { Array($0.utf8) } + [Array("-o".utf8), out], timeout: 20)
            #expect(!run.timedOut, "\(arguments): still running after 20 s")
            #expect(run.status == 1, "\(arguments): status \(run.status), stderr: \(run.stderr)")
            #expect(run.stderr == "stack: error: \(fifo): is a named pipe (FIFO), not a regular file\n",
                    "\(arguments): \(run.stderr)")
        }
        #expect(!RawFile.exists(out))
    }

    @Test("too few reference stars: the advice names --star-sigma and its value, both real")
    func starAdvice() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A blank sky has no stars at any threshold.
        let blank = Image(width: 96, height: 96, channels: 1, repeating: 0.1)
        let frames = [dir + "/a.png", dir + "/b.png"]
        for f in frames { try ImageFile.write(blank, to: f) }
        for (extra, value) in [([String](), "5"), (["--star-sigma", "3.5"], "3.5")] {
            let run = try CLIHarness.run(["--align", "stars", "-o", dir + "/out.png"] + extra + frames)
            #expect(run.status == 1, "stderr: \(run.stderr)")
            #expect(run.stderr.contains("lower the detection threshold (--star-sigma, now \(value))"), "stderr: \(run.stderr)")
            #expect(run.stderr.contains("(--reference)"), "stderr: \(run.stderr)")
        }
        let help = try CLIHarness.run(["--help"])
        #expect(help.stdout.contains("--star-sigma <k>"))
        let bad = try CLIHarness.run(["--star-sigma", "0"] + frames)
        #expect(bad.status == 2 && bad.stderr.contains("--star-sigma needs a positive number"), "stderr: \(bad.stderr)")
    }

    @Test("--star-sigma changes star detection: a higher threshold finds fewer stars")
    func starSigmaChangesDetection() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let lights = Array(try AstroCLITests.session(in: dir).prefix(3))
        func referenceStars(_ sigma: String) throws -> Int {
            let run = try CLIHarness.run(["--align", "stars", "--star-sigma", sigma, "-o", "out-\(sigma).png",
                                          "--report", "run-\(sigma).json", "--quiet"] + lights, in: dir)
            #expect(run.status == 0, "σ \(sigma): \(run.stderr)")
            let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/run-\(sigma).json"))
            let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let frames = try #require(report["frames"] as? [[String: Any]])
            return try #require(frames.first?["starsFound"] as? Int)
        }
        let loose = try referenceStars("4"), strict = try referenceStars("12")
        #expect(strict < loose, "σ 4: \(loose) stars, σ 12: \(strict)")
        let none = try CLIHarness.run(["--align", "stars", "--star-sigma", "100000", "-o", "never.png"] + lights, in: dir)
        #expect(none.status == 1 && none.stderr.contains("now 100000"), "stderr: \(none.stderr)")
    }
}

/// Files named by raw bytes, through Glibc (Foundation would take a `String`).
enum RawFile {
    /// Creates (or replaces) the file named `path` with `bytes`.
    static func write(_ path: [UInt8], bytes: [UInt8]) throws {
        let fd = path.withCString { open($0, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard n == bytes.count else { throw POSIXError(.EIO) }
    }

    /// The contents of the file named `path`.
    static func read(_ path: [UInt8]) throws -> [UInt8] {
        let fd = path.withCString { open($0, O_RDONLY) }
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return out }
            out += chunk[..<n]
        }
    }

    /// True when something exists at `path`.
    static func exists(_ path: [UInt8]) -> Bool {
        var st = stat()
        return path.withCString { lstat($0, &st) } == 0
    }
}

/// A run of the `stack` binary with arguments given as raw bytes
/// (`Process` would encode `String`s as UTF-8), killed after a timeout.
struct RawRun {
    let status: Int32
    let stderr: String
    let timedOut: Bool

    /// Runs the binary with `arguments`, stdout and stderr to temporary
    /// files; kills it when it has not exited after `timeout` seconds.
    static func start(_ arguments: [[UInt8]], timeout: Double = 120) throws -> RawRun {
        let folder = try CLIHarness.temporaryFolder("raw-run")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let errPath = folder + "/stderr"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let binary = try CLIHarness.binary
        let argv: [UnsafeMutablePointer<CChar>?] = ([Array(binary.utf8)] + arguments).map { bytes in
            bytes.withCString { strdup($0) }
        } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let rc = binary.withCString { posix_spawn(&pid, $0, &actions, nil, argv, environ) }
        guard rc == 0 else { throw POSIXError(.init(rawValue: rc) ?? .EIO) }
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        var status: Int32 = 0
        var timedOut = false
        while waitpid(pid, &status, WNOHANG) == 0 {
            if ContinuousClock.now > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                timedOut = true
                break
            }
            usleep(10_000)
        }
        let exit = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return RawRun(status: exit, stderr: err, timedOut: timedOut)
    }
}

extension Array where Element == UInt8 {
    /// Calls `body` with the bytes as a NUL-terminated C string.
    func withCString<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        try (map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { try body($0.baseAddress!) }
    }
}
