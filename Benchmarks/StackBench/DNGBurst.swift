import Foundation
import SceneGen
import Stacker

/// A synthetic camera raw burst the benchmark runs on: SceneGen street
/// frames as uncompressed 16-bit RGGB DNG 1.4 files (`DNGFile`, the writer
/// the tests use), generated once into the work folder and reused while
/// their fingerprint is unchanged.
struct DNGBurst: Sendable {
    var width: Int
    var height: Int
    var frames: Int

    /// Folder name under the work folder.
    var name: String { "dng-\(width)x\(height)-\(frames)" }

    /// Megapixels per frame.
    var megapixels: Double { Double(width * height) / 1e6 }

    /// The SceneGen config: the street preset at this size and count.
    var config: SceneConfig { Burst.street(width: width, height: height, frames: frames) }

    /// Everything that shapes the files; a change regenerates them.
    var fingerprint: String {
        let c = config
        return "v1 dng rggb16 street \(c.width)x\(c.height) n\(c.frameCount) seed\(c.seed) shift\(c.maxShift) "
            + "noise\(c.noiseSigma) objects\(c.objectCount) coverage\(c.objectCoverage)"
    }

    /// The frames' paths, frame 0 first.
    func paths(in work: String) -> [String] {
        (0..<frames).map { String(format: "%@/%@/frame_%03d.dng", work, name, $0) }
    }

    /// One line for the table: "20×24MP DNG".
    var label: String { "\(frames)×\(Int(megapixels.rounded()))MP DNG" }

    /// Generates the burst unless a complete one with the same fingerprint is there.
    func ensure(in work: String, log: (String) -> Void) throws {
        let files = paths(in: work)
        try ensureGenerated(work + "/" + name, fingerprint: fingerprint, required: files, log: log,
                            announce: "\(name): DNG \(frames) × \(width)×\(height) (\(String(format: "%.0f", Double(2 * width * height * frames) / 1e6)) MB)") {
            try FileManager.default.createDirectory(atPath: work + "/" + name, withIntermediateDirectories: true)
            let dng = DNGFile(width: width, height: height)
            try SceneGenerator.forEachFrame(config) { i, frame in
                let bytes = dng.bytes(samples: DNGFile.rggbSamples(frame))
                let part = files[i] + ".part"
                try Data(bytes).write(to: URL(fileURLWithPath: part))
                guard rename(part, files[i]) == 0 else { throw BenchError("cannot rename \(part)") }
            }
        }
    }

    /// 20 × 24 MP (6000 × 4000), the issue's burst: ~0.96 GB.
    static let main = DNGBurst(width: 6000, height: 4000, frames: 20)
}
