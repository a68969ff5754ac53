import Foundation
import Testing
@testable import Stacker
import TestSupport

/// Bad input through the built `stack` binary: a clear one-line error naming
/// the file, exit code 1, no output written, a pre-existing output untouched.
@Suite("stack on bad input")
struct BadInputTests {
    /// A folder with two good frames (`a.jpg`, `b.jpg`) and an `out.jpg` from an earlier run.
    struct Fixture {
        let dir: String
        let good: [String]
        let output: String
        let outputBytes: Data

        init(name: String = #function) throws {
            dir = try CLIHarness.temporaryFolder(name)
            let frames = try CLIHarness.makeBurst(in: dir, frames: 2, width: 128, height: 96)
            good = [dir + "/a.jpg", dir + "/b.jpg"]
            try FileManager.default.moveItem(atPath: frames[0], toPath: good[0])
            try FileManager.default.moveItem(atPath: frames[1], toPath: good[1])
            output = dir + "/out.jpg"
            outputBytes = Data("an earlier result".utf8)
            try outputBytes.write(to: URL(fileURLWithPath: output))
        }

        func write(_ name: String, _ bytes: [UInt8]) throws -> String {
            let path = dir + "/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }

        func goodBytes(_ i: Int) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: good[i]))) }

        /// Runs stack on the good frames plus `extra`; checks the failure contract.
        func expectFailure(_ extra: [String], mentions: String, in reason: String? = nil,
                           options: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
            let before = CLIHarness.listing(dir)
            let r = try CLIHarness.run(options + ["--output", output] + good + extra)
            #expect(r.status == 1, "status \(r.status): \(r.stderr)", sourceLocation: sourceLocation)
            let lines = r.stderr.split(separator: "\n")
            #expect(lines.count == 1, "one line expected: \(r.stderr)", sourceLocation: sourceLocation)
            #expect(r.stderr.hasPrefix("stack: error: \(mentions)"), "\(r.stderr)", sourceLocation: sourceLocation)
            if let reason { #expect(r.stderr.contains(reason), "\(r.stderr)", sourceLocation: sourceLocation) }
            #expect(CLIHarness.listing(dir) == before, "files changed: \(CLIHarness.listing(dir))", sourceLocation: sourceLocation)
            #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == outputBytes, sourceLocation: sourceLocation)
        }

        func remove() { try? FileManager.default.removeItem(atPath: dir) }
    }

    @Test("missing file, folder, empty file, text named .jpg, device")
    func unreadableFiles() throws {
        let f = try Fixture()
        defer { f.remove() }
        try f.expectFailure([f.dir + "/missing.jpg"], mentions: f.dir + "/missing.jpg", in: "No such file")
        try FileManager.default.createDirectory(atPath: f.dir + "/folder.jpg", withIntermediateDirectories: false)
        try f.expectFailure([f.dir + "/folder.jpg"], mentions: f.dir + "/folder.jpg", in: "folder")
        try f.expectFailure([try f.write("empty.jpg", [])], mentions: f.dir + "/empty.jpg", in: "empty")
        try f.expectFailure([try f.write("text.jpg", Array("hello, world\n".utf8))], mentions: f.dir + "/text.jpg",
                            in: "not a JPEG, PNG, TIFF, FITS, HEIF/AVIF or SER")
        try f.expectFailure(["/dev/zero"], mentions: "/dev/zero", in: "not a regular file")
    }

    @Test("truncated and corrupt JPEG data")
    func damagedJPEG() throws {
        let f = try Fixture()
        defer { f.remove() }
        let jpeg = try f.goodBytes(0)
        try f.expectFailure([try f.write("truncated.jpg", Array(jpeg.prefix(jpeg.count / 3)))],
                            mentions: f.dir + "/truncated.jpg", in: "JPEG")
        var corrupt = jpeg
        // Overwrite a stretch of entropy-coded data with marker-like garbage.
        for i in (jpeg.count / 2)..<(jpeg.count / 2 + 200) { corrupt[i] = i % 5 == 0 ? 0xFF : corrupt[i] ^ 0x5A }
        try f.expectFailure([try f.write("corrupt.jpg", corrupt)], mentions: f.dir + "/corrupt.jpg", in: "JPEG")
        // Only the header survives: markers but no scan.
        try f.expectFailure([try f.write("header.jpg", Array(jpeg.prefix(600)))], mentions: f.dir + "/header.jpg")
    }

    @Test("PNG with a bad CRC")
    func badCRC() throws {
        let f = try Fixture()
        defer { f.remove() }
        var png = try ImageFile.encode(Image(width: 16, height: 16, channels: 3, repeating: 0.5), format: .png)
        png[png.count - 20] ^= 0xFF   // inside IDAT (before IEND's 12 bytes)
        try f.expectFailure([try f.write("crc.png", png)], mentions: f.dir + "/crc.png", in: "PNG")
    }

    @Test("CMYK JPEG is refused clearly")
    func cmyk() throws {
        let f = try Fixture()
        defer { f.remove() }
        let path = try f.write("cmyk.jpg", try JPEGCodec.cmykSampleForTesting(width: 128, height: 96))
        try f.expectFailure([path], mentions: path, in: "CMYK")
    }

    @Test("an absurd header size is refused before allocating (decompression bomb)")
    func decompressionBomb() throws {
        let f = try Fixture()
        defer { f.remove() }
        // JPEG: patch the SOF dimensions to 60000 × 60000 (3.6 gigapixels).
        var jpeg = try f.goodBytes(0)
        var i = 2
        while i + 9 < jpeg.count {
            if jpeg[i] == 0xFF, [0xC0, 0xC1, 0xC2].contains(jpeg[i + 1]) {
                jpeg[i + 5] = 0xEA; jpeg[i + 6] = 0x60; jpeg[i + 7] = 0xEA; jpeg[i + 8] = 0x60
                break
            }
            i += 1
        }
        let bomb = try f.write("bomb.jpg", jpeg)
        try f.expectFailure([bomb], mentions: bomb, in: "limit")
        // PNG: a valid IHDR (CRC recomputed) claiming 100000 × 100000.
        var png = try ImageFile.encode(Image(width: 16, height: 16, channels: 3, repeating: 0.5), format: .png)
        for (k, b) in [UInt8]([0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0]).enumerated() { png[16 + k] = b }
        let crc = HandMadePNG.crc32(png[12..<29])
        for k in 0..<4 { png[29 + k] = UInt8((crc >> (24 - 8 * UInt32(k))) & 0xFF) }
        let pngBomb = try f.write("bomb.png", png)
        try f.expectFailure([pngBomb], mentions: pngBomb, in: "limit")
        // A lower --max-pixels refuses an ordinary frame too.
        try f.expectFailure([], mentions: f.good[0], in: "limit", options: ["--max-pixels", "1000"])
    }

    @Test("frames of different sizes: refused, naming the odd one")
    func sizeMismatch() throws {
        let f = try Fixture()
        defer { f.remove() }
        let odd = try f.write("odd.jpg", try ImageFile.encode(Image(width: 100, height: 50, channels: 3, repeating: 0.5), format: .jpeg))
        try f.expectFailure([odd], mentions: odd, in: "100×50")
    }

    @Test("a single frame, duplicates only, and no usable frames are errors")
    func tooFewFrames() throws {
        let f = try Fixture()
        defer { f.remove() }
        let single = try CLIHarness.run(["--output", f.output, f.good[0]])
        #expect(single.status == 1 && single.stderr.contains("at least two frames"), "\(single.stderr)")
        let twice = try CLIHarness.run(["--output", f.output, f.good[0], f.dir + "/./a.jpg"])
        #expect(twice.status == 1, "\(twice.stderr)")
        #expect(twice.stderr.contains("same file as frame 0"), "the duplicate should be named: \(twice.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: f.output)) == f.outputBytes)
        let none = try CLIHarness.run(["--output", f.output])
        #expect(none.status == 2 && none.stderr.contains("no frames"))
    }

    @Test("--skip-bad skips unreadable frames with a warning and records them in the report")
    func skipBad() throws {
        let f = try Fixture()
        defer { f.remove() }
        let text = try f.write("text.jpg", Array("not an image".utf8))
        let r = try CLIHarness.run(["--skip-bad", "--output", f.output, "--report", f.dir + "/run.json",
                                    f.good[0], text, f.good[1], f.dir + "/missing.jpg"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("stack: warning: \(text): skipped: not a JPEG, PNG, TIFF, FITS, HEIF/AVIF or SER file"), "\(r.stderr)")
        #expect(r.stderr.contains("stack: warning: \(f.dir)/missing.jpg: skipped:"), "\(r.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: f.dir + "/run.json"))) as! [String: Any]
        let frames = report["frames"] as! [[String: Any]]
        #expect(frames.map { $0["used"] as! Bool } == [true, false, true, false])
        #expect((frames[1]["reason"] as? String)?.contains("not a JPEG, PNG, TIFF, FITS, HEIF/AVIF or SER") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: f.output)) != f.outputBytes, "the output should be replaced")
        // Fewer than two usable frames is still an error.
        let tooFew = try CLIHarness.run(["--skip-bad", "--output", f.output, f.good[0], text])
        #expect(tooFew.status == 1, "\(tooFew.stderr)")
    }

    @Test("SIGINT during a run: exit 130, the earlier output untouched, no temporary files")
    func interrupted() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A long run: many copies of one large frame, median (frame store on disk).
        let big = dir + "/big.png"
        try ImageFile.write(Image(width: 1200, height: 900, channels: 3, repeating: 0.4), to: big)
        var frames: [String] = []
        for k in 0..<60 {
            let p = dir + "/f\(k).png"
            try FileManager.default.copyItem(atPath: big, toPath: p)
            frames.append(p)
        }
        let output = dir + "/out.png"
        let old = Data("earlier result".utf8)
        try old.write(to: URL(fileURLWithPath: output))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try CLIHarness.binary)
        p.arguments = ["--mode", "median", "--align", "none", "--memory-limit", "1M", "--threads", "1",
                       "--output", output] + frames
        p.standardError = FileHandle.nullDevice
        try p.run()
        Thread.sleep(forTimeInterval: 1.0)
        let stillRunning = p.isRunning
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        #expect(stillRunning, "the run finished before the signal; the test needs a longer run")
        #expect(p.terminationStatus == 130)
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == old)
        let leftovers = CLIHarness.listing(dir).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")
    }

    @Test("1,000 small frames run without exhausting file descriptors")
    func thousandFrames() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frame = try ImageFile.encode(Image(width: 24, height: 16, channels: 1, repeating: 0.25), format: .png)
        var paths: [String] = []
        for k in 0..<1000 {
            let p = dir + "/f\(k).png"
            try Data(frame).write(to: URL(fileURLWithPath: p))
            paths.append(p)
        }
        let r = try CLIHarness.run(["-q", "--align", "none", "--output", dir + "/out.png"] + paths)
        #expect(r.status == 0, "\(r.stderr)")
        let out = try ImageFile.read(dir + "/out.png").image
        #expect(out.width == 24 && abs(out.planes[0].pixels[0] - 64.0 / 255) < 1e-6)
    }
}
