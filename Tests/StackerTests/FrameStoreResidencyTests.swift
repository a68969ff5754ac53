import Testing
import Foundation
import Registration
@testable import Stacker

/// A frame store past its memory limit lives in a mapped file; its pages
/// must not all stay resident in the process while it is filled and reduced.
@Suite("Frame store residency")
struct FrameStoreResidencyTests {
    /// This process's resident file-backed pages (RssFile in /proc/self/status), in bytes.
    static func residentFileBytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssFile:") }),
              let kb = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kb * 1024
    }

    @Test("a 96 MB mapped buffer keeps about its 8 MiB budget resident while written, none of a dropped range")
    func mappedBufferDropsPages() throws {
        let size = 96 << 20, budget = 8 << 20, chunk = 1 << 20
        let buffer = try FrameStoreBuffer(mappedBytes: size, directory: "/tmp", residentBudget: budget)
        let before = Self.residentFileBytes()
        var peak = 0
        for offset in stride(from: 0, to: size, by: chunk) {
            (buffer.base + offset).initializeMemory(as: UInt8.self, repeating: UInt8(offset >> 20), count: chunk)
            buffer.noteWritten(chunk)
            peak = max(peak, Self.residentFileBytes() - before)
        }
        // Other tests may map files meanwhile: 4 MiB of slack beside the budget.
        #expect(peak <= budget + (4 << 20), "peak \(peak >> 20) MiB resident of a 96 MiB mapping")
        // Read it all back (the data stays in the file), then drop what was read.
        var wrong = 0
        for offset in stride(from: 0, to: size, by: chunk) where buffer.base.load(fromByteOffset: offset + 7, as: UInt8.self) != UInt8(offset >> 20) {
            wrong += 1
        }
        #expect(wrong == 0)
        #expect(Self.residentFileBytes() - before > 64 << 20, "reading maps the pages back in")
        buffer.dropResident(from: 0, count: size)
        #expect(Self.residentFileBytes() - before < 4 << 20)
    }
}
