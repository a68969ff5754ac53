import Foundation
import Testing

@Suite("stack --memory-limit")
struct MemoryLimitTests {
    /// JPEG qualities of the bursts: 95 writes 4:4:4 chroma (the robust
    /// kernels stack RGB), 85 writes 4:2:0 (they stack Y, Cb, Cr in two stores).
    static let qualities = [95, 85]

    @Test("a burst larger than --memory-limit spills to disk and gives bit-identical output; no temporary file remains",
          arguments: ["median", "sigma-clip", "mode"], qualities)
    func spillIsBitIdentical(mode: String, quality: Int) throws {
        let dir = try CLIHarness.temporaryFolder("spill\(mode)\(quality)")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 6 frames × 640×480 × 3 channels × 1–2 bytes ≈ 5–11 MB (+ coverage) > the 1 MiB limit.
        let frames = try CLIHarness.makeBurst(in: dir, frames: 6, width: 640, height: 480, seed: 13, quality: quality)
        let inMemory = try CLIHarness.run(["-q", "--mode", mode, "--output", dir + "/memory.png"] + frames)
        #expect(inMemory.status == 0, "\(inMemory.stderr)")
        let spilled = try CLIHarness.run(["-q", "--mode", mode, "--memory-limit", "1M", "--output", dir + "/disk.png"] + frames)
        #expect(spilled.status == 0, "\(spilled.stderr)")
        let a = try Data(contentsOf: URL(fileURLWithPath: dir + "/memory.png"))
        let b = try Data(contentsOf: URL(fileURLWithPath: dir + "/disk.png"))
        #expect(a == b, "outputs differ")
        let leftovers = CLIHarness.listing(dir).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")
    }

    @Test("--threads 1 and --threads 2 give byte-identical output", arguments: ["average", "median"], qualities)
    func threadCountDoesNotMatter(mode: String, quality: Int) throws {
        let dir = try CLIHarness.temporaryFolder("threads\(mode)\(quality)")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = try CLIHarness.makeBurst(in: dir, frames: 5, width: 320, height: 240, seed: 17, quality: quality)
        let one = try CLIHarness.run(["-q", "--mode", mode, "--threads", "1", "--output", dir + "/one.jpg"] + frames)
        let two = try CLIHarness.run(["-q", "--mode", mode, "--threads", "2", "--output", dir + "/two.jpg"] + frames)
        #expect(one.status == 0 && two.status == 0, "\(one.stderr) \(two.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/one.jpg")) == Data(contentsOf: URL(fileURLWithPath: dir + "/two.jpg")))
    }
}
