import Dispatch
import Foundation
import SceneGen
import Stacker
import Synchronization

/// A synthetic camera raw burst the benchmark runs on: SceneGen street
/// frames as RGGB DNG 1.4 files (`DNGFile`, the writer the tests use),
/// generated once into the work folder and reused while their fingerprint
/// is unchanged. Uncompressed, or (`compression: .ljpeg`) lossless JPEG in
/// 256 × 256 tiles as cameras and Adobe's converter write them: the same
/// samples, transcoded from the uncompressed burst.
struct DNGBurst: Sendable {
    var width: Int
    var height: Int
    var frames: Int
    var compression = DNGFile.Compression.none
    var noise = Noise.camera

    /// How the samples are made from the rendered frames.
    enum Noise: String, Sendable, CaseIterable {
        /// 14-bit samples from noise-free frames through `CameraSensor`
        /// (shot and read noise of a 24 MP sensor at base ISO, black level
        /// 1024, white level 16383): what a camera's raw holds.
        case camera
        /// The frames' own Gaussian noise (σ 1 % of full scale) scaled to
        /// 16 bits (`DNGFile.rggbSamples`): the first version of this
        /// burst, whose figures of 2026-12-06 in docs/performance.md used it.
        case scene
    }

    /// Folder name under the work folder.
    var name: String {
        "dng-\(width)x\(height)-\(frames)" + (noise == .camera ? "-cam14" : "") + (compression == .ljpeg ? "-ljpeg" : "")
    }

    /// The same burst stored uncompressed.
    var uncompressed: DNGBurst { DNGBurst(width: width, height: height, frames: frames, noise: noise) }

    /// The same burst stored as lossless JPEG.
    var losslessJPEG: DNGBurst { DNGBurst(width: width, height: height, frames: frames, compression: .ljpeg, noise: noise) }

    /// Megapixels per frame.
    var megapixels: Double { Double(width * height) / 1e6 }

    /// The SceneGen config: the street preset at this size and count.
    /// (noise-free with the camera model, which adds its own).
    var config: SceneConfig {
        var c = Burst.street(width: width, height: height, frames: frames)
        if noise == .camera { c.noiseSigma = 0 }
        return c
    }

    /// The camera model's sensor.
    static let sensor = CameraSensor()

    /// Everything that shapes the files; a change regenerates them.
    var fingerprint: String {
        let c = config, k = Self.sensor
        var plain = "v1 dng rggb16 street \(c.width)x\(c.height) n\(c.frameCount) seed\(c.seed) shift\(c.maxShift) "
            + "noise\(c.noiseSigma) objects\(c.objectCount) coverage\(c.objectCoverage)"
        if noise == .camera {
            plain = "v2 camera well\(k.fullWell) read\(k.readNoise) black\(k.blackLevel) white\(k.whiteLevel) "
                + "neutral\(k.neutral) srgb-linear; " + plain
        }
        return compression == .ljpeg ? "v1 ljpeg tile256 predictor1 of " + plain : plain
    }

    /// The file layout: the camera model's levels and neutral, or 16 bits from 0.
    var layout: DNGFile {
        var dng = noise == .camera ? Self.sensor.dngFile(width: width, height: height) : DNGFile(width: width, height: height)
        dng.compression = compression
        return dng
    }

    /// The frames' paths, frame 0 first.
    func paths(in work: String) -> [String] {
        (0..<frames).map { String(format: "%@/%@/frame_%03d.dng", work, name, $0) }
    }

    /// One line for the table: "20×24MP DNG" or "20×24MP LJPEG DNG" ("… DNG σ1%" for the scene-noise burst).
    var label: String {
        "\(frames)×\(Int(megapixels.rounded()))MP \(compression == .ljpeg ? "LJPEG " : "")DNG" + (noise == .scene ? " σ1%" : "")
    }

    /// Generates the burst unless a complete one with the same fingerprint is there.
    func ensure(in work: String, log: (String) -> Void) throws {
        if compression == .ljpeg { return try ensureTranscoded(in: work, log: log) }
        let files = paths(in: work)
        try ensureGenerated(work + "/" + name, fingerprint: fingerprint, required: files, log: log,
                            announce: "\(name): DNG (\(noise.rawValue) noise) \(frames) × \(width)×\(height) (\(String(format: "%.0f", Double(2 * width * height * frames) / 1e6)) MB)") {
            try FileManager.default.createDirectory(atPath: work + "/" + name, withIntermediateDirectories: true)
            let dng = layout, noise = noise
            try SceneGenerator.forEachFrame(config) { i, frame in
                let samples = noise == .camera ? Self.sensor.rggbSamples(frame, seed: 0xD96 + UInt64(i)) : DNGFile.rggbSamples(frame)
                try Self.write(dng.bytes(samples: samples), to: files[i])
            }
        }
    }

    /// The lossless JPEG burst: the uncompressed burst's samples (the last
    /// 2 × width × height bytes of each file, where `DNGFile` puts them)
    /// re-encoded, one frame per core.
    private func ensureTranscoded(in work: String, log: (String) -> Void) throws {
        let source = uncompressed
        try source.ensure(in: work, log: log)
        let inputs = source.paths(in: work), files = paths(in: work)
        try ensureGenerated(work + "/" + name, fingerprint: fingerprint, required: files, log: log,
                            announce: "\(name): lossless JPEG DNG \(frames) × \(width)×\(height) from \(source.name)") {
            try FileManager.default.createDirectory(atPath: work + "/" + name, withIntermediateDirectories: true)
            let dng = layout
            let count = width * height
            let failure = Mutex<String?>(nil)
            DispatchQueue.concurrentPerform(iterations: frames) { i in
                do {
                    guard let data = FileManager.default.contents(atPath: inputs[i]), data.count > 2 * count else {
                        throw BenchError("\(inputs[i]): shorter than its \(count) samples")
                    }
                    let samples = data.withUnsafeBytes { raw in
                        let start = raw.count - 2 * count
                        return (0..<count).map { UInt16(raw[start + 2 * $0]) | UInt16(raw[start + 2 * $0 + 1]) << 8 }
                    }
                    try Self.write(dng.bytes(samples: samples), to: files[i])
                } catch {
                    failure.withLock { $0 = $0 ?? "\(error)" }
                }
            }
            if let message = failure.withLock({ $0 }) { throw BenchError(message) }
        }
    }

    /// Writes `bytes` to `path` through a `.part` file, so a cut run leaves no half file under the real name.
    private static func write(_ bytes: [UInt8], to path: String) throws {
        let part = path + ".part"
        try Data(bytes).write(to: URL(fileURLWithPath: part))
        guard rename(part, path) == 0 else { throw BenchError("cannot rename \(part)") }
    }

    /// 20 × 24 MP (6000 × 4000), the issue's burst: ~0.96 GB.
    static let main = DNGBurst(width: 6000, height: 4000, frames: 20)
}
