public import Stacker
import Foundation
internal import Registration

extension Scene {
    /// The file name of frame `index` for `format`: `frame_000.jpg`, `frame_001.png`, …
    public static func frameFileName(_ index: Int, format: ImageFormat) -> String {
        let digits = String(index)
        let padded = String(repeating: "0", count: max(0, 3 - digits.count)) + digits
        return "frame_\(padded).\(fileExtension(format))"
    }

    /// The extension files of `format` get: `jpg`, `png`, `tiff`, `fits`.
    public static func fileExtension(_ format: ImageFormat) -> String {
        format == .jpeg ? "jpg" : format.rawValue
    }

    /// Writes the burst into `folder` (created with its parents if missing):
    /// the frames `frame_000.jpg`… (JPEG at `quality`, or 8-bit PNG), the ground
    /// truth `truth.png` (16-bit PNG) and `truth.json` with the true shifts.
    /// Every file is written atomically.
    ///
    /// `truth.json`: `{"version": 1, "width", "height", "reference": 0,
    /// "frames": [{"path", "dx", "dy"}…], "truth": "truth.png", "noiseSigma",
    /// "seed", "preset", "channels", "objectCount", "hotPixels": [[x, y]…],
    /// "trailFrame"}`; paths are relative to the folder, shifts follow
    /// `FrameShift`'s convention.
    /// - Throws: `SceneGenError.writeFailed` when the folder cannot be made;
    ///   the encoder's `StackerError` when a file cannot be written.
    public func write(to folder: String, format: ImageFormat = .jpeg, quality: Int = 95) throws {
        try Scene.makeFolder(folder)
        for (i, frame) in frames.enumerated() {
            try Scene.writeFrame(frame, index: i, to: folder, format: format, quality: quality)
        }
        try Scene.writeTruth(groundTruth, json: truthJSON(format: format), to: folder)
        try Scene.writeMask(transientMask, to: folder)
    }

    /// Writes `mask.png` (8-bit gray): white where anything transient passed
    /// in any frame (`transientMask`), the mask `stack compare --mask` takes.
    static func writeMask(_ mask: Plane, to folder: String) throws {
        try ImageFile.write(Image(width: mask.width, height: mask.height, planes: [mask]), to: folder + "/mask.png",
                            options: EncodeOptions(quality: 100, bitDepth: 8))
    }

    /// Marks in `mask` (on the reference grid) where `frameMask` touches,
    /// carried by `transform` as `transientCoverage` does.
    static func addTransient(_ frameMask: Plane, by transform: Transform, to mask: inout Plane) {
        let onReference = Warper.warp([frameMask], by: transform, width: mask.width, height: mask.height,
                                      interpolation: .bicubic).planes[0]
        for k in 0..<mask.count where onReference.pixels[k] > 0.05 { mask.pixels[k] = 1 }
    }

    /// Creates `folder` and its parents when missing.
    static func makeFolder(_ folder: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw SceneGenError.writeFailed(path: folder, reason: "cannot create the folder: \(error.localizedDescription)")
        }
    }

    /// Writes frame `index` as `frame_NNN.<ext>` (8-bit).
    static func writeFrame(_ frame: Image, index: Int, to folder: String, format: ImageFormat, quality: Int) throws {
        try ImageFile.write(frame, to: folder + "/" + frameFileName(index, format: format),
                            options: EncodeOptions(quality: min(max(quality, 1), 100), bitDepth: 8))
    }

    /// Writes `truth.png` (16-bit) and `truth.json`.
    static func writeTruth(_ truth: Image, json: String, to folder: String) throws {
        try ImageFile.write(truth, to: folder + "/truth.png", options: EncodeOptions(quality: 100, bitDepth: 16))
        try AtomicFile.write(Array(json.utf8), to: folder + "/truth.json")
    }

    /// The `truth.json` text that `write(to:format:quality:)` stores.
    public func truthJSON(format: ImageFormat = .jpeg) -> String {
        Scene.truthJSON(config: config, shifts: shifts, objectCount: objects.count, hotPixels: hotPixels,
                        trailFrame: trailFrame, format: format)
    }

    /// `truth.json` from its parts.
    static func truthJSON(config: SceneConfig, shifts: [FrameShift], objectCount: Int, hotPixels: [SensorPixel],
                          trailFrame: Int?, format: ImageFormat) -> String {
        func num(_ v: Double) -> String {
            guard v.isFinite else { return "0" }
            return v == v.rounded() && abs(v) < 1e15 ? String(format: "%.1f", v) : String(format: "%.6f", v)
        }
        func str(_ s: String) -> String {
            var o = "\""
            for ch in s.unicodeScalars {
                switch ch {
                case "\"": o += "\\\""
                case "\\": o += "\\\\"
                case "\n": o += "\\n"
                case "\t": o += "\\t"
                default:
                    if ch.value < 0x20 { o += String(format: "\\u%04x", ch.value) } else { o.unicodeScalars.append(ch) }
                }
            }
            return o + "\""
        }
        var lines: [String] = []
        lines.append("{")
        lines.append("  \"version\": 1,")
        lines.append("  \"preset\": \(str(config.preset)),")
        lines.append("  \"width\": \(config.width),")
        lines.append("  \"height\": \(config.height),")
        lines.append("  \"channels\": \(config.channels),")
        lines.append("  \"reference\": 0,")
        lines.append("  \"truth\": \"truth.png\",")
        lines.append("  \"seed\": \(config.seed),")
        lines.append("  \"noiseSigma\": \(num(config.noiseSigma)),")
        lines.append("  \"maxShift\": \(num(config.maxShift)),")
        lines.append("  \"objectCount\": \(objectCount),")
        lines.append("  \"objectCoverage\": \(num(config.objectCoverage)),")
        lines.append("  \"trailFrame\": \(trailFrame.map(String.init) ?? "null"),")
        let hot = hotPixels.map { "[\($0.x), \($0.y)]" }.joined(separator: ", ")
        lines.append("  \"hotPixels\": [\(hot)],")
        lines.append("  \"frames\": [")
        for (i, s) in shifts.enumerated() {
            let comma = i + 1 < shifts.count ? "," : ""
            lines.append("    {\"path\": \(str(Scene.frameFileName(i, format: format))), \"dx\": \(num(s.dx)), \"dy\": \(num(s.dy))}\(comma)")
        }
        lines.append("  ]")
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }
}
