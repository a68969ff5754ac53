import Foundation
import Testing
@testable import Stacker
import TestSupport

/// Real files from other projects' test suites (`Tests/Fixtures/real/`, see
/// its README) through the built `stack` binary: each is refused with one
/// line naming it, exit 1, and without the memory its headers ask for
/// (issue 22, items 2 and 3).
@Suite("stack on real-world hostile files")
struct RealFileHardeningTests {
    /// `Tests/Fixtures/real/`.
    static let fixtures = TestFiles.realFixtures

    /// libpng's 57-byte crashers whose one chunk claims 2^30 bytes.
    static let hugeChunkPNGs = ["tEXt", "zTXt", "iTXt", "pCAL", "sCAL", "sPLT"].map { "huge_\($0)_chunk.png" }

    /// Peak resident memory allowed for a run on a file under 1 MB. The
    /// debug binary peaks near 20 MB on these; before the fix each PNG
    /// took 1,065 MB, and six of them together 6.3 GB. A reading of 0 means
    /// the measurement saw nothing, and fails too.
    static let peakLimitKiB = 100 * 1024

    /// A finished child: exit status, what it wrote to stderr, and the
    /// highest resident set size seen in KiB (see `measuredRun`).
    struct MeasuredRun {
        let status: Int32
        let stderr: String
        let peakKiB: Int
    }

    /// Runs `stack` with `arguments` under GNU time (`/usr/bin/time`, the
    /// Debian package `time`, which `make test` installs) and returns the
    /// child's own peak RSS, exactly, from the `ru_maxrss` that `wait4` gives
    /// time for it. Not measured from this process: the test process's own
    /// high-water mark would be carried into a child it spawns (vfork), and
    /// polling /proc misses a child that exits within a millisecond. stdout
    /// goes to /dev/null, stderr to a file in `folder`.
    static func measuredRun(_ arguments: [String], in folder: String) throws -> MeasuredRun {
        let time = "/usr/bin/time"
        guard FileManager.default.isExecutableFile(atPath: time) else {
            throw StackerError.unreadable(path: time, reason: "GNU time is needed to measure peak memory: apt-get install time")
        }
        let errPath = folder + "/stderr.txt", peakPath = folder + "/peak.txt"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: time)
        process.arguments = ["-f", "%M", "-o", peakPath, try CLIHarness.binary] + arguments
        process.standardOutput = FileHandle.nullDevice
        FileManager.default.createFile(atPath: errPath, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        try process.run()
        process.waitUntilExit()
        // GNU time exits with the child's status (128 + the signal for a signal death).
        let text = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        let report = (try? String(contentsOfFile: peakPath, encoding: .utf8)) ?? ""
        // Before the figure, time may write "Command exited with non-zero status N".
        let peak = report.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        return MeasuredRun(status: process.terminationStatus, stderr: text, peakKiB: peak)
    }

    /// `count` copies of the fixture `name` in `folder` (stack refuses the
    /// same file twice, so a file is stacked with copies of itself).
    static func copies(of name: String, _ count: Int, in folder: String) throws -> [String] {
        let ext = (name as NSString).pathExtension
        let base = (name as NSString).deletingPathExtension
        return try (0..<count).map { k in
            let path = folder + "/\(base)-\(k).\(ext)"
            try FileManager.default.copyItem(atPath: fixtures + "/" + name, toPath: path)
            return path
        }
    }

    /// The refusal contract for a run on a hostile file: exit 1, one line
    /// `stack: error: <file>: <saying>…` that mentions `mentioning`, a
    /// measured peak RSS under `peakLimitKiB`, and no `output` written.
    static func expectRefused(_ r: MeasuredRun, naming file: String, saying start: String = "", mentioning: String,
                              output: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == 1, "status \(r.status): \(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stderr.split(separator: "\n").count == 1, "one line expected: \(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stderr.hasPrefix("stack: error: \(file): \(start)"), "\(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stderr.contains(mentioning), "\(r.stderr)", sourceLocation: sourceLocation)
        #expect((1..<peakLimitKiB).contains(r.peakKiB), "peak RSS \(r.peakKiB) KiB for \(file)", sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: output), sourceLocation: sourceLocation)
    }

    @Test("each huge-chunk PNG is refused in one line, exit 1, peak RSS under 100 MB",
          arguments: hugeChunkPNGs)
    func hugeChunkRefused(name: String) throws {
        let dir = try CLIHarness.temporaryFolder("huge\(name)")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = try Self.copies(of: name, 2, in: dir)
        let r = try Self.measuredRun(["--output", dir + "/out.png"] + frames, in: dir)
        Self.expectRefused(r, naming: frames[0], mentioning: "PNG", output: dir + "/out.png")
    }

    @Test("all six skipped under --skip-bad --threads 8 between two good frames, peak RSS under 100 MB")
    func hugeChunksSkipped() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var gray = Image(width: 32, height: 32, channels: 1, repeating: 0.25)
        for k in gray.planes[0].pixels.indices { gray.planes[0].pixels[k] = Float(k % 97) / 97 }
        let good = try ImageFile.encode(gray, format: .png)
        let first = dir + "/first.png", last = dir + "/last.png"
        try Data(good).write(to: URL(fileURLWithPath: first))
        try Data(good).write(to: URL(fileURLWithPath: last))
        let bad = try Self.hugeChunkPNGs.flatMap { try Self.copies(of: $0, 1, in: dir) }
        let r = try Self.measuredRun(["--skip-bad", "--threads", "8", "--align", "none",
                                      "--output", dir + "/out.png", first] + bad + [last], in: dir)
        #expect(r.status == 0, "status \(r.status): \(r.stderr)")
        let warnings = r.stderr.split(separator: "\n").filter { $0.hasPrefix("stack: warning: ") }
        #expect(warnings.count == bad.count, "\(r.stderr)")
        for path in bad { #expect(warnings.contains { $0.hasPrefix("stack: warning: \(path): ") }, "\(path): \(r.stderr)") }
        #expect((1..<Self.peakLimitKiB).contains(r.peakKiB), "peak RSS \(r.peakKiB) KiB")
    }

    @Test("the TIFF with 2^31+1 rows per strip and 39 strips is refused in one line, exit 1")
    func overflowRowsPerStripRefused() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = try Self.copies(of: "tiff_overflow_rows_per_strip.tif", 2, in: dir)
        let r = try Self.measuredRun(["--output", dir + "/out.png"] + frames, in: dir)
        Self.expectRefused(r, naming: frames[0], saying: "corrupt TIFF data", mentioning: "39 strip entries",
                           output: dir + "/out.png")
    }

    @Test("a valid PNG with a 9 MB tEXt and a 1 MB iTXt chunk decodes to the same pixels; one with 1 MB stacks")
    func bigTextChunksStillDecode() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var rgb = Image(width: 24, height: 20, channels: 3)
        for c in 0..<3 {
            for k in rgb.planes[c].pixels.indices { rgb.planes[c].pixels[k] = Float((k * (c + 3)) % 251) / 255 }
        }
        let plain = try ImageFile.encode(rgb, format: .png)
        func withText(_ textBytes: Int, _ xmpBytes: Int) -> [UInt8] {
            let tEXt = Array("Comment".utf8) + [0] + [UInt8](repeating: UInt8(ascii: "x"), count: textBytes)
            let iTXt = Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0]  // uncompressed, no language or translation
                + [UInt8](repeating: UInt8(ascii: "y"), count: xmpBytes)
            return HandMadePNG.inserting([("tEXt", tEXt), ("iTXt", iTXt)], afterIHDROf: plain)
        }
        // The tEXt is over libpng's own 8,000,000-byte chunk limit, which it
        // only warns about: a fix that made that limit fatal would fail here.
        let big = withText(9 << 20, 1 << 20)
        let a = try ImageFile.decode(bytes: plain, path: "plain.png").image
        let b = try ImageFile.decode(bytes: big, path: "big.png").image
        #expect(b.width == a.width && b.height == a.height && b.channels == a.channels)
        #expect(b.planes.map(\.pixels) == a.planes.map(\.pixels))

        // Through the binary with a smaller file: a debug build reads files
        // at about 2 s per 10 MB.
        let frames = [dir + "/a.png", dir + "/b.png"]
        for f in frames { try Data(withText(1 << 20, 1 << 18)).write(to: URL(fileURLWithPath: f)) }
        let r = try Self.measuredRun(["--align", "none", "--output", dir + "/out.png"] + frames, in: dir)
        #expect(r.status == 0, "status \(r.status): \(r.stderr)")
        let out = try ImageFile.read(dir + "/out.png").image
        #expect(out.planes.map(\.pixels) == a.planes.map(\.pixels))
        #expect((1..<Self.peakLimitKiB).contains(r.peakKiB), "peak RSS \(r.peakKiB) KiB")
    }

    /// A little-endian gray 8-bit TIFF layout, strips or tiles.
    static func gray8(width: Int, height: Int, rowsPerStrip: Int? = nil, tile: (Int, Int)? = nil) -> HandMadeTIFF {
        HandMadeTIFF(width: width, height: height, samplesPerPixel: 1, bits: 8, photometric: 1,
                     tile: tile, rowsPerStrip: rowsPerStrip)
    }

    /// The reason `bytes` is refused for, or nil when it decodes.
    static func refusal(_ bytes: [UInt8]) -> String? {
        do {
            _ = try ImageFile.decode(bytes: bytes, path: "made.tif")
            return nil
        } catch let error as StackerError {
            return error.reason
        } catch {
            return "\(error)"
        }
    }

    @Test("strip and tile tables that disagree with the geometry are refused; a consistent file decodes")
    func stripGeometryChecks() throws {
        let strips = (0..<4).map { s in (0..<(16 * 64)).map { UInt8(truncatingIfNeeded: $0 + 16 * s) } }
        let valid = Self.gray8(width: 64, height: 64, rowsPerStrip: 16).bytes(chunks: strips)
        let image = try ImageFile.decode(bytes: valid, path: "valid.tif").image
        #expect(image.width == 64 && image.height == 64 && image.channels == 1)
        #expect(image.planes[0].pixels[16 * 64 + 3] == Float(UInt8(truncatingIfNeeded: 3 + 16)) / 255)

        // 4 strips where RowsPerStrip says 2.
        let tooMany = Self.gray8(width: 64, height: 64, rowsPerStrip: 32).bytes(chunks: strips)
        #expect(Self.refusal(tooMany)?.contains("4 strip entries") == true, "\(Self.refusal(tooMany) ?? "decoded")")

        // An uncompressed strip whose byte count is shorter than its rows:
        // libtiff would read the next strip's bytes in its place.
        let short = Self.gray8(width: 64, height: 64, rowsPerStrip: 16)
            .bytes(chunks: strips, byteCounts: [1024, 1024, 100, 1024])
        #expect(Self.refusal(short)?.contains("uncompressed strip 2 holds 100 of its 1024 bytes") == true,
                "\(Self.refusal(short) ?? "decoded")")

        // A tile over the image, within the 16 MB slack, still decodes.
        let padded = Self.gray8(width: 20, height: 20, tile: (32, 32)).bytes(chunks: [[UInt8](repeating: 7, count: 32 * 32)])
        #expect(Self.refusal(padded) == nil, "\(Self.refusal(padded) ?? "")")

        // A 4096×4096 RGB float tile (192 MiB) for a 16×16 image: refused
        // before anything that size is allocated.
        let huge = HandMadeTIFF(width: 16, height: 16, samplesPerPixel: 3, bits: 32, photometric: 2, sampleFormat: 3,
                                tile: (4096, 4096)).bytes(chunks: [[UInt8](repeating: 0, count: 64)])
        #expect(Self.refusal(huge)?.contains("a 4096x4096 tile for a 16x16 image") == true,
                "\(Self.refusal(huge) ?? "decoded")")
    }
}
