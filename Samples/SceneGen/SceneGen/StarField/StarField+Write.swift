public import Stacker
import Foundation

extension StarField {
    /// Writes the session into `folder` (created if missing), one frame in
    /// memory at a time, every file atomically:
    ///
    ///     lights/light_000.<ext> …   the light frames (frame 0 is the reference)
    ///     bias/bias_000.<ext> …      bias frames     (when calibrationFrames > 0)
    ///     darks/dark_000.<ext> …     dark frames
    ///     flats/flat_000.<ext> …     flat frames
    ///     truth.<ext>                the calibrated, noise-free reference
    ///     truth.json                 poses, defects and the sensor model
    ///
    /// Frames are 16-bit (whole ADU); `format` is any format `ImageFile`
    /// writes at 16 bits (PNG, and TIFF or FITS where built in).
    ///
    /// `truth.json`: `{"version": 1, "preset": "stars", "width", "height",
    /// "channels", "reference": 0, "truth", "seed", "gain", "biasLevel",
    /// "meanFlat", "starCount", "trailFrame", "hotPixels": [[x, y]…],
    /// "bias"/"darks"/"flats": [paths…], "frames": [{"path", "dx", "dy",
    /// "rotation", "scale", "fwhm", "sky", "transform"}…]}` with paths
    /// relative to the folder, `transform` (3×3 rows) frame → reference as
    /// in the stack report, `rotation` in degrees, `sky` in e⁻.
    /// - Throws: `SceneGenError.writeFailed` when a folder cannot be made;
    ///   the encoder's `StackerError` when a file cannot be written.
    public func write(to folder: String, format: ImageFormat = .png) throws {
        let ext = Scene.fileExtension(format)
        let options = EncodeOptions(quality: 100, bitDepth: 16)
        func name(_ prefix: String, _ i: Int) -> String {
            let digits = String(i)
            return "\(prefix)_\(String(repeating: "0", count: max(0, 3 - digits.count)))\(digits).\(ext)"
        }
        func series(_ sub: String, _ prefix: String, count: Int, _ render: (Int) -> Image) throws -> [String] {
            guard count > 0 else { return [] }
            try Scene.makeFolder(folder + "/" + sub)
            return try (0..<count).map { i in
                let path = sub + "/" + name(prefix, i)
                try ImageFile.write(render(i), to: folder + "/" + path, options: options)
                return path
            }
        }
        try Scene.makeFolder(folder)
        let lights = try series("lights", "light", count: config.frameCount, light)
        let n = config.calibrationFrames
        let bias = try series("bias", "bias", count: n, bias)
        let darks = try series("darks", "dark", count: n, dark)
        let flats = try series("flats", "flat", count: n, flat)
        let truthName = "truth.\(ext)"
        try ImageFile.write(truth(), to: folder + "/" + truthName, options: options)
        try AtomicFile.write(Array(truthJSON(lights: lights, bias: bias, darks: darks, flats: flats,
                                             truth: truthName).utf8),
                             to: folder + "/truth.json")
    }

    /// The `truth.json` text (see `write(to:format:)`).
    func truthJSON(lights: [String], bias: [String], darks: [String], flats: [String], truth: String) -> String {
        func num(_ v: Double) -> String { v.isFinite && v != 0 ? String(format: "%.9g", v) : "0" }
        func list(_ paths: [String]) -> String { "[" + paths.map { "\"\($0)\"" }.joined(separator: ", ") + "]" }
        let c = config
        var lines = ["{", "  \"version\": 1,", "  \"preset\": \"stars\","]
        lines.append("  \"width\": \(c.width), \"height\": \(c.height), \"channels\": \(c.channels),")
        lines.append("  \"reference\": 0, \"truth\": \"\(truth)\", \"seed\": \(c.seed),")
        lines.append("  \"gain\": \(num(c.gain)), \"biasLevel\": \(num(c.biasLevel)), \"meanFlat\": \(num(meanFlat)),")
        lines.append("  \"starCount\": \(stars.count), \"trailFrame\": \(c.trailFrame.map(String.init) ?? "null"),")
        lines.append("  \"hotPixels\": [\(hotPixels.map { "[\($0.x), \($0.y)]" }.joined(separator: ", "))],")
        lines.append("  \"bias\": \(list(bias)), \"darks\": \(list(darks)), \"flats\": \(list(flats)),")
        lines.append("  \"frames\": [")
        for (i, path) in lights.enumerated() {
            let t = transforms[i]
            let rows = t.rows.map { "[" + $0.map(num).joined(separator: ", ") + "]" }.joined(separator: ", ")
            let comma = i + 1 < lights.count ? "," : ""
            lines.append("    {\"path\": \"\(path)\", \"dx\": \(num(t.translation.dx)), \"dy\": \(num(t.translation.dy)), "
                + "\"rotation\": \(num(rotations[i])), \"scale\": \(num(scales[i])), \"fwhm\": \(num(fwhms[i])), "
                + "\"sky\": \(num(skyLevels[i])), \"transform\": [\(rows)]}\(comma)")
        }
        lines += ["  ]", "}"]
        return lines.joined(separator: "\n") + "\n"
    }
}
