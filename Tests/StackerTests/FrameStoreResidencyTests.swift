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

    @Test("a 96 MiB mapped buffer with an 8 MiB budget never has half of itself resident while written, nor after a drop")
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
        // Resident file pages are the whole process's (other tests map
        // files and fault in code meanwhile), so the bound is generous:
        // without the drops the 96 MiB would all be resident.
        #expect(peak < size / 2, "peak \(peak >> 20) MiB resident while writing a 96 MiB mapping")
        // Read it all back (the data stays in the file), then drop it.
        var wrong = 0
        for offset in stride(from: 0, to: size, by: 4096)
        where buffer.base.load(fromByteOffset: offset + 7, as: UInt8.self) != UInt8(offset >> 20) {
            wrong += 1
        }
        #expect(wrong == 0)
        buffer.dropResident(from: 0, count: size)
        #expect(Self.residentFileBytes() - before < size / 2)
    }
}
