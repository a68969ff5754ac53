import Foundation
import SceneGen
import Stacker

/// A synthetic SER video the benchmark runs on: a SceneGen street scene
/// (its luma: a mono camera) written as one SER file, generated once into
/// the work folder and reused while its fingerprint is unchanged.
///
/// The file is what FireCapture and SharpCap write for a mono camera: the
/// 178-byte `LUCAM-RECORDER` header (ColorID 0, `LittleEndian` 0, which
/// every reader takes as little-endian samples), the frames top row first,
/// then one 8-byte timestamp per frame.
struct SERVideo: Sendable {
    /// Folder name under the work folder.
    var name: String
    var width: Int
    var height: Int
    var frames: Int
    /// 8 or 16 bits per sample.
    var bitDepth: Int

    /// Megapixels per frame.
    var megapixels: Double { Double(width * height) / 1e6 }

    /// Bytes of one frame.
    var frameBytes: Int { width * height * (bitDepth > 8 ? 2 : 1) }

    /// The SceneGen config: the street preset at this size and count.
    var config: SceneConfig { Burst.street(width: width, height: height, frames: frames) }

    /// Everything that shapes the file; a change regenerates it.
    var fingerprint: String {
        let c = config
        return "v1 ser mono\(bitDepth) street \(c.width)x\(c.height) n\(c.frameCount) seed\(c.seed) shift\(c.maxShift) "
            + "noise\(c.noiseSigma) objects\(c.objectCount) coverage\(c.objectCoverage)"
    }

    /// The video's path.
    func path(in work: String) -> String { work + "/" + name + "/video.ser" }

    /// One line for the table: "200 × 1280×960 mono16".
    var label: String { "\(frames)×\(width)×\(height) mono\(bitDepth)" }

    /// Generates the video unless a complete one with the same fingerprint is there.
    func ensure(in work: String, log: (String) -> Void) throws {
        let file = path(in: work)
        try ensureGenerated(work + "/" + name, fingerprint: fingerprint, required: [file], log: log,
                            announce: "\(name): SER \(label) (\(String(format: "%.0f", Double(frameBytes * frames) / 1e6)) MB)") {
            try FileManager.default.createDirectory(atPath: work + "/" + name, withIntermediateDirectories: true)
            try write(to: file)
        }
    }

    /// Renders the frames one at a time and writes the file (to `path.part`,
    /// renamed when complete).
    func write(to path: String) throws {
        let part = path + ".part"
        guard FileManager.default.createFile(atPath: part, contents: nil),
              let out = FileHandle(forWritingAtPath: part) else { throw BenchError("cannot create \(part)") }
        defer { try? out.close() }
        try out.write(contentsOf: header())
        let scale = Float(bitDepth > 8 ? 65535 : 255)
        try SceneGenerator.forEachFrame(config) { _, frame in
            let luma = frame.luma.pixels
            var bytes = [UInt8](repeating: 0, count: frameBytes)
            for (i, v) in luma.enumerated() {
                let q = UInt16((min(1, max(0, v)) * scale).rounded())
                if bitDepth > 8 {
                    bytes[2 * i] = UInt8(truncatingIfNeeded: q)
                    bytes[2 * i + 1] = UInt8(truncatingIfNeeded: q >> 8)
                } else {
                    bytes[i] = UInt8(q)
                }
            }
            try out.write(contentsOf: bytes)
        }
        // Timestamps (.NET ticks, 100 ns from year 1), one per frame, 10 ms apart.
        let start: Int64 = 638_400_000_000_000_000
        try out.write(contentsOf: (0..<frames).flatMap { SERVideo.le64(start + Int64($0) * 100_000) })
        try out.close()
        guard rename(part, path) == 0 else { throw BenchError("cannot rename \(part)") }
    }

    /// The 178-byte header.
    func header() -> Data {
        func text(_ s: String) -> [UInt8] { Array(s.utf8.prefix(40)) + [UInt8](repeating: 0, count: 40 - min(40, s.utf8.count)) }
        var h = Array("LUCAM-RECORDER".utf8)
        for v in [0, 0, 0, width, height, bitDepth, frames] { h += SERVideo.le32(v) }  // LuID, ColorID mono, LittleEndian 0
        h += text("stack-bench") + text("SceneGen street") + text("none")
        h += SERVideo.le64(638_400_000_000_000_000) + SERVideo.le64(638_400_000_000_000_000)
        precondition(h.count == 178, "SER header of \(h.count) bytes")
        return Data(h)
    }

    static func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    static func le64(_ v: Int64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * Int64($0))) } }

    /// 200 × 1280×960, 16-bit (a planetary or lunar camera's region of interest).
    static let main = SERVideo(name: "ser-1280x960-200", width: 1280, height: 960, frames: 200, bitDepth: 16)
    /// 200 and 2,000 × 320×240, 8-bit: the per-frame overhead at a small frame size.
    static let small200 = SERVideo(name: "ser-320x240-200", width: 320, height: 240, frames: 200, bitDepth: 8)
    static let small2000 = SERVideo(name: "ser-320x240-2000", width: 320, height: 240, frames: 2000, bitDepth: 8)
}
