import Foundation
import Testing
import Registration
@testable import Stacker
import TestSupport

/// A FITS cube's frame k is read from its header and plane k alone, not
/// from the whole file in memory.
@Suite("FITS cube planes read alone")
struct FITSCubePlaneTests {
    /// Bytes this thread has read through `read`-family calls so far
    /// (`rchar` of /proc/thread-self/io): other tests' reads on other
    /// threads do not count.
    static func bytesReadByThisThread() throws -> Int {
        let text = try String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("rchar:") })
        return try #require(Int(line.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)))
    }

    @Test("plane k of a 40-plane 16-bit cube equals plane k as written, and reading it costs about one plane's bytes, not the file's")
    func onePlane() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(folder) }
        let (w, h, planes) = (128, 96, 40)
        var rng = TestRandom(seed: 2581)
        let samples = (0..<(w * h * planes)).map { _ in UInt16(rng.uniform() * 65535) }
        let path = folder + "/cube.fits"
        // Stored bottom row first per plane, as the FITS convention reads it.
        let data = (0..<planes).flatMap { k in
            FITSCaptureTests.data16(Array(samples[(k * w * h)..<((k + 1) * w * h)]), width: w, bottomUp: true)
        }
        let file = HandMadeFITS.file(cards: HandMadeFITS.cards(bitpix: 16, axes: [w, h, planes]) + [FITSCaptureTests.bzero], data: data)
        try Data(file).write(to: URL(fileURLWithPath: path))
        #expect(try ImageFile.frameCount(path) == planes)

        let planeBytes = w * h * 2
        for k in [0, 17, planes - 1] {
            let before = try Self.bytesReadByThisThread()
            let start = Date()
            let frame = try ImageFile.readFrame(k, of: path)
            let seconds = Date().timeIntervalSince(start)
            let read = try Self.bytesReadByThisThread() - before
            let truth = samples[(k * w * h)..<((k + 1) * w * h)].map { Float($0) / 65535 }
            #expect(frame.image.planes.count == 1 && frame.image.planes[0].pixels == truth, "plane \(k)")
            print("FITS cube plane \(k) of \(planes): \(read) bytes read (one plane \(planeBytes), file \(file.count)), \(seconds * 1000) ms")
            // The header record, the plane and cfitsio's record-sized reads
            // around it; the whole file would be 40 planes.
            #expect(read < 3 * planeBytes, "plane \(k): \(read) bytes read for a \(planeBytes)-byte plane")
        }
        // The same plane as the in-memory decoder gives it.
        let whole = try FITSCodec.decode(file, path: path, maxPixels: .max, frame: 17)
        #expect(try ImageFile.readFrame(17, of: path).image == whole.image)
        #expect(throws: StackerError.self) { try ImageFile.readFrame(planes, of: path) }
    }

    @Test("a cube cut short is refused by the plane reader, naming the file")
    func truncatedCube() throws {
        let folder = try TestFiles.temporaryFolder()
        defer { TestFiles.remove(folder) }
        let (w, h, planes) = (64, 48, 10)
        let data = [UInt8](repeating: 0x80, count: w * h * 2 * planes)
        var file = HandMadeFITS.file(cards: HandMadeFITS.cards(bitpix: 16, axes: [w, h, planes]) + [FITSCaptureTests.bzero], data: data)
        file.removeLast(file.count / 2 / 2880 * 2880)  // half the data records gone, still whole records
        let path = folder + "/short.fits"
        try Data(file).write(to: URL(fileURLWithPath: path))
        do {
            _ = try ImageFile.readFrame(1, of: path)
            Issue.record("a truncated cube was read")
        } catch let error as StackerError {
            #expect("\(error)".contains(path) && "\(error)".contains("truncated"), "\(error)")
        }
    }
}
