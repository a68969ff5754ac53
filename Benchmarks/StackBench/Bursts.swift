import Foundation
import SceneGen
import Stacker

/// A synthetic burst the benchmark runs on, generated once into the work
/// folder and reused while its fingerprint (every setting that shapes the
/// files) is unchanged.
struct Burst: Sendable {
    /// Folder name under the work folder.
    var name: String
    var width: Int
    var height: Int
    var frames: Int
    /// The frames' file format: JPEG, or HEIC (`.heif`: see `encodeHEIC`).
    var format: ImageFormat = .jpeg
    /// This burst's JPEG quality: `Burst.quality` unless a burst needs
    /// another (q90: the encoder's 4:4:4 chroma).
    var jpegQuality: Int = Burst.quality
    /// JPEG (and HEIC) quality used to write the frames. 89, because the library's
    /// encoder picks 4:4:4 chroma at quality ≥ 90 and 4:2:0 below, and
    /// `EncodeOptions` has no subsampling option; q89 4:2:0 stands in for a
    /// camera's q95 4:2:0.
    static let quality = 89

    /// Megapixels per frame.
    var megapixels: Double { Double(width * height) / 1e6 }

    /// The SceneGen config: the street preset at this size and count.
    var config: SceneConfig { Burst.street(width: width, height: height, frames: frames) }

    /// SceneGen's street preset at a size and frame count, seed 1: every
    /// burst and video of the bench is one of these.
    static func street(width: Int, height: Int, frames: Int) -> SceneConfig {
        var c = SceneConfig.street
        c.preset = "street"
        c.width = width
        c.height = height
        c.frameCount = frames
        c.seed = 1
        return c
    }

    /// Everything that shapes the files; a change regenerates the burst.
    var fingerprint: String {
        let c = config
        return "v1 street \(c.width)x\(c.height) n\(c.frameCount) seed\(c.seed) shift\(c.maxShift) noise\(c.noiseSigma) "
            + "objects\(c.objectCount) coverage\(c.objectCoverage) "
            + (format == .jpeg ? "jpeg q\(jpegQuality)" : "heic q\(Burst.quality) x265 \(Burst.heicPreset)")
    }

    /// The burst folder.
    func folder(in work: String) -> String { work + "/" + name }

    /// Paths of the first `count` frames (all when nil).
    func paths(in work: String, count: Int? = nil) -> [String] {
        (0..<min(count ?? frames, frames)).map { folder(in: work) + "/" + Scene.frameFileName($0, format: format) }
    }

    /// True shifts from `truth.json`, frame 0 first.
    func truth(in work: String) throws -> [(dx: Double, dy: Double)] {
        let url = URL(fileURLWithPath: folder(in: work) + "/truth.json")
        guard let obj = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any],
              let frames = obj["frames"] as? [[String: Any]] else { throw BenchError("\(url.path): no frames") }
        return frames.map { (($0["dx"] as? Double) ?? 0, ($0["dy"] as? Double) ?? 0) }
    }

    /// Generates the burst unless a complete one with the same fingerprint is there.
    func ensure(in work: String, log: (String) -> Void) throws {
        let dir = folder(in: work)
        try ensureGenerated(dir, fingerprint: fingerprint, required: paths(in: work), log: log,
                            announce: "\(name): \(frames) × \(width)×\(height) (\(String(format: "%.1f", megapixels)) MP), \(format == .jpeg ? "JPEG q\(jpegQuality)" : "HEIC q\(Burst.quality)")") {
            if format == .heif {
                try encodeHEIC(in: work)
            } else {
                try SceneGenerator.write(config, to: dir, format: format, quality: jpegQuality)
            }
        }
    }

    /// x265's preset for the HEIC frames. The library's writer uses
    /// "medium", which took ~1.5 min per 12 MP frame on the loaded 2-core
    /// bench machine; "ultrafast" (no SAO, simpler mode decisions: a
    /// slightly cheaper stream to decode) makes the 20 frames in minutes.
    static let heicPreset = "ultrafast"

    /// The HEIC frames: SceneGen writes 8-bit PNG frames, `heif-enc`
    /// (Debian libheif-examples: libheif's x265 at `quality`, 4:2:0 as
    /// phones write) turns each into `frame_NNN.heif`, and the PNG is removed.
    func encodeHEIC(in work: String) throws {
        let dir = folder(in: work)
        guard let heifEnc = ChildProcess.which("heif-enc") else {
            throw BenchError("the heic case needs heif-enc: apt-get install libheif-examples")
        }
        try SceneGenerator.write(config, to: dir, format: .png, quality: 100)
        for i in 0..<frames {
            let png = dir + "/" + Scene.frameFileName(i, format: .png)
            let argv = [heifEnc, "-q", "\(Burst.quality)", "-p", "preset=\(Burst.heicPreset)",
                        "-p", "chroma=420", "-o", dir + "/" + Scene.frameFileName(i, format: .heif), png]
            // Once more when killed from outside (a shared machine's
            // clean-up took one with SIGTERM, exit 143, mid-burst).
            var run = try ChildProcess.run(argv, quietErrors: true, workDir: dir)
            if run.status > 128 { run = try ChildProcess.run(argv, quietErrors: true, workDir: dir) }
            guard run.status == 0 else { throw BenchError("heif-enc failed on \(png) (exit \(run.status))") }
            try FileManager.default.removeItem(atPath: png)
        }
    }

    /// 40 × 12 MP: the first 20 are the main burst, 10/20/40 the frame-count scaling.
    static let mp12 = Burst(name: "street-12mp-40", width: 4000, height: 3000, frames: 40)
    /// 200 × 12 MP: the robust modes' frame-count scaling (20, 100, 200 frames).
    static let mp12x200 = Burst(name: "street-12mp-200", width: 4000, height: 3000, frames: 200)
    /// The same 200 × 12 MP at q90, which the encoder writes with 4:4:4
    /// chroma: RGB in the robust modes' store (robust-scaling's `jpeg444`).
    static let mp12x200rgb = Burst(name: "street-12mp-200-444", width: 4000, height: 3000, frames: 200,
                                   jpegQuality: 90)
    /// 50 × 4 MP (the first 10 are the quick run's small burst and the 4 MP size point).
    static let mp4 = Burst(name: "street-4mp-50", width: 2304, height: 1728, frames: 50)
    /// 10 × 1 MP (size scaling, registration).
    static let mp1 = Burst(name: "street-1mp-10", width: 1152, height: 864, frames: 10)
    /// 20 × 12 MP HEIC (the `heic` case against the HEIC decode floor).
    static let heic12 = Burst(name: "street-12mp-20-heic", width: 4000, height: 3000, frames: 20, format: .heif)
    /// 10 × 24 MP (size scaling).
    static let mp24 = Burst(name: "street-24mp-10", width: 5664, height: 4248, frames: 10)
}

/// Generated bench data cached in the folder `dir`: unless `dir/.fingerprint`
/// holds `fingerprint` and every path in `required` exists, the folder is
/// removed, `generate` fills it again (announced and timed on `log`) and the
/// fingerprint is written last, so an interrupted generation is redone.
func ensureGenerated(_ dir: String, fingerprint: String, required: [String], log: (String) -> Void,
                     announce: String, generate: () throws -> Void) throws {
    let stamp = dir + "/.fingerprint"
    let fm = FileManager.default
    if let old = try? String(contentsOfFile: stamp, encoding: .utf8), old == fingerprint,
       required.allSatisfy({ fm.fileExists(atPath: $0) }) {
        return
    }
    log("generating \(announce) …")
    let t0 = now()
    try? fm.removeItem(atPath: dir)
    try generate()
    try fingerprint.write(toFile: stamp, atomically: true, encoding: .utf8)
    log("  done in \(String(format: "%.1f", now() - t0)) s")
}
