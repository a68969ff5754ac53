#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// What one child process cost: wall time, its own peak resident set, CPU time.
struct ChildRun: Sendable {
    /// Wall-clock seconds from spawn to exit.
    var wall: Double
    /// Peak resident set size of the child, bytes (see `ChildProcess.run`).
    var peakRSS: Int
    /// User + system CPU seconds of the child.
    var cpu: Double
    /// Exit status (0 = success); 128 + signal when killed.
    var status: Int32
    /// What the child wrote to stdout.
    var stdout: String
}

/// Spawns child processes and measures them with `wait4`.
///
/// Peak memory goes through GNU time (`/usr/bin/time -f %M`) when it is
/// installed: `posix_spawn` starts the child in the harness's address space
/// (vfork), and Linux carries that address space's high-water mark into the
/// child's `ru_maxrss` at exec, so a small run measured after the harness
/// had held large frames would report the harness's peak instead of its own.
/// GNU time forks from its own small process, and its figure is the
/// command's alone. Without it the reading is `max(harness peak, child
/// peak)`, and the report says so.
enum ChildProcess {
    /// GNU time, when installed.
    static let gnuTime: String? = access("/usr/bin/time", X_OK) == 0 ? "/usr/bin/time" : nil

    /// Runs `argv[0]` (looked up on PATH) with `argv`, stdout captured to a
    /// temporary file, stderr passed through (or to /dev/null when `quietErrors`).
    /// `environment` replaces the inherited environment when given.
    static func run(_ argv: [String], environment: [String: String]? = nil,
                    quietErrors: Bool = false, workDir: String) throws -> ChildRun {
        let outPath = workDir + "/.child-stdout-\(getpid())"
        let rssPath = workDir + "/.child-rss-\(getpid())"
        let argv = gnuTime.map { [$0, "-f", "%M", "-o", rssPath] + argv } ?? argv
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if quietErrors { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }

        let env = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        var cEnv: [UnsafeMutablePointer<CChar>?] = env.map { strdup($0) } + [nil]
        defer { for p in cArgs { free(p) }; for p in cEnv { free(p) } }

        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        let rc = posix_spawnp(&pid, argv[0], &actions, nil, &cArgs, &cEnv)
        guard rc == 0 else { throw BenchError("cannot start \(argv[0]): \(String(cString: strerror(rc)))") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        unlink(outPath)
        // GNU time's last line is the peak in KiB (earlier lines, if any, say
        // how the command ended).
        let timed = (try? String(contentsOfFile: rssPath, encoding: .utf8))?
            .split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        unlink(rssPath)
        // WIFEXITED / WEXITSTATUS by hand (macros are not imported).
        let code: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return ChildRun(wall: wall, peakRSS: (timed ?? Int(usage.ru_maxrss)) * 1024, cpu: cpu, status: code, stdout: out)
    }

    /// The absolute path of `name` on PATH, if any.
    static func which(_ name: String) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let p = "\(dir)/\(name)"
            if access(p, X_OK) == 0 { return p }
        }
        return nil
    }
}

/// The harness's one error type: a sentence.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// Seconds since an arbitrary start, monotonic.
func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
