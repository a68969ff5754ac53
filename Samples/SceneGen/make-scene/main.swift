// make-scene: writes a synthetic burst with ground truth.
// Parse → validate → run; help on stdout, usage errors on stderr with exit 2,
// failures with exit 1.
import SceneGen
import Stacker
import Foundation

/// The command's options after parsing.
struct MakeScene {
    var preset = "street"
    var width: Int?
    var height: Int?
    var frames: Int?
    var seed: UInt64?
    var maxShift: Double?
    var noise: Double?
    var movers: Int?
    var format: ImageFormat?
    var quality = 95
    var output: String?
    var maxRotation: Double?
    var channels: Int?
    var calibrationFrames: Int?

    static let help = """
    OVERVIEW: Write a synthetic photo burst with known shifts and ground truth.

    USAGE: make-scene [--preset <preset>] [--width <w>] [--height <h>] [--frames <n>]
                      [--seed <s>] [--max-shift <px>] [--noise <sigma>]
                      [--max-rotation <deg>] [--channels <n>] [--calibration-frames <n>]
                      [--format <format>] [--quality <q>] --output <dir>

    OPTIONS:
      --preset <preset>     street | crowd | trail | stars | sr (default: street)
                              street: a few passers-by, each pixel covered in ≤ 30 % of frames
                              crowd:  many vivid objects, ≤ 60 % of frames, background still the largest cluster
                              trail:  a satellite trail across one frame plus fixed hot pixels
                              stars:  a 16-bit astro session: star field with field rotation, drift,
                                      sky gradient, vignetting, hot pixels, a satellite trail, plus
                                      bias, dark and flat frames (see below)
                              sr:     super-resolution: 24 16-bit PNG frames (--frames) at random subpixel
                                      shifts (±2 px, --max-shift), each pixel a box over 2 × 2 truth
                                      pixels, noise 0.01; truth.png at twice the size (see below)
      --width <w>           Frame width in pixels, ≥ 8 (default: 640)
      --height <h>          Frame height in pixels, ≥ 8 (default: 480)
      --frames <n>          Number of frames, ≥ 1 (default: preset's, 8 to 12)
      --seed <s>            Random seed, an unsigned integer (default: 1)
      --max-shift <px>      Camera shake: shifts uniform in ±px (default: 6)
      --noise <sigma>       Gaussian noise sigma on the 0…1 scale (default: preset's, 0.01)
      --movers <n>          sr: small discs crossing the scene in the frames, not the truth (a
                            handheld burst of a street); mask.png marks where (default: 0)
      --max-rotation <deg>  stars: field rotation uniform in ±deg (default: 2)
      --channels <n>        stars: 1 (mono) or 3 (colour) (default: 1)
      --calibration-frames <n>
                            stars: bias, dark and flat frames of each kind (default: 8)
      --format <format>     jpg | png | tiff | fits for the frames (default: jpg; stars: png;
                              stars frames are 16-bit)
      --quality <q>         JPEG quality 1-100 (default: 95)
      --output <dir>        Folder to create and fill (required)
      -h, --help            Show help information.

    Writes frame_000.<ext>…, truth.png (16-bit, the noise- and object-free
    reference view), mask.png (white on the reference grid where a moving
    object passed in any frame: `stack compare --mask` measures ghosts there)
    and truth.json (true shifts: the pixel at (x, y) in a frame shows what
    frame 0 shows at (x + dx, y + dy)).

    The stars preset writes lights/, bias/, darks/ and flats/ (16-bit), truth.png
    (the calibrated, noise-free reference) and truth.json (each frame's transform
    to the reference, rotation, FWHM and sky level; hot pixels; the trail frame).

    The sr preset writes frames/frame_000.png…, truth.png (twice the frame size,
    the grid `stack --scale 2` writes), truth.json (the shifts) and, with
    --movers, mask.png (on the truth's grid, where a disc passed).
    """

    /// Parses `args` (without the program name). Returns nil after `--help`.
    static func parse(_ args: [String]) throws(UsageError) -> MakeScene? {
        var m = MakeScene()
        var i = 0
        func value(_ name: String, inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            i += 1
            guard i < args.count else { throw UsageError("missing value for '\(name)'") }
            return args[i]
        }
        func int(_ name: String, _ s: String) throws(UsageError) -> Int {
            guard let v = Int(s) else { throw UsageError("'\(s)' is not a valid integer for '\(name)'") }
            return v
        }
        func double(_ name: String, _ s: String) throws(UsageError) -> Double {
            guard let v = Double(s), v.isFinite else { throw UsageError("'\(s)' is not a valid number for '\(name)'") }
            return v
        }
        var positionalOnly = false
        while i < args.count {
            let arg = args[i]
            if positionalOnly || !arg.hasPrefix("-") || arg == "-" {
                throw UsageError("unexpected argument '\(arg)'")
            }
            if arg == "--" { positionalOnly = true; i += 1; continue }
            var name = arg, inline: String?
            if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            switch name {
            case "-h", "--help":
                return nil
            case "--preset":
                let v = try value(name, inline: inline)
                guard SceneConfig.preset(named: v) != nil || ["stars", "sr"].contains(v.lowercased()) else {
                    throw UsageError("'\(v)' is not a preset; choose street, crowd, trail, stars or sr")
                }
                m.preset = v.lowercased()
            case "--width": m.width = try int(name, try value(name, inline: inline))
            case "--height": m.height = try int(name, try value(name, inline: inline))
            case "--frames": m.frames = try int(name, try value(name, inline: inline))
            case "--seed":
                let v = try value(name, inline: inline)
                guard let s = UInt64(v) else { throw UsageError("'\(v)' is not a valid seed (an unsigned integer)") }
                m.seed = s
            case "--max-shift": m.maxShift = try double(name, try value(name, inline: inline))
            case "--noise": m.noise = try double(name, try value(name, inline: inline))
            case "--movers": m.movers = try int(name, try value(name, inline: inline))
            case "--format":
                let v = try value(name, inline: inline)
                switch v.lowercased() {
                case "jpg", "jpeg": m.format = .jpeg
                case "png": m.format = .png
                case "tif", "tiff": m.format = .tiff
                case "fits", "fit": m.format = .fits
                default: throw UsageError("'\(v)' is not a format; choose jpg, png, tiff or fits")
                }
            case "--max-rotation": m.maxRotation = try double(name, try value(name, inline: inline))
            case "--channels": m.channels = try int(name, try value(name, inline: inline))
            case "--calibration-frames": m.calibrationFrames = try int(name, try value(name, inline: inline))
            case "--quality": m.quality = try int(name, try value(name, inline: inline))
            case "--output", "-o": m.output = try value(name, inline: inline)
            default:
                throw UsageError("unknown option '\(name)'")
            }
            i += 1
        }
        return m
    }

    /// What to write: a photo burst or an astro session.
    enum Job {
        case burst(SceneConfig)
        case stars(StarFieldConfig)
        /// The super-resolution scene: frame size, frames, seed, max shift, noise, moving discs.
        case superResolution(width: Int, height: Int, frames: Int, seed: UInt64, maxShift: Double, noise: Double, movers: Int)
    }

    /// The job these options ask for, validated.
    func job() throws(UsageError) -> Job {
        guard (1...100).contains(quality) else { throw UsageError("quality must be 1-100 (got \(quality))") }
        guard let output, !output.isEmpty else { throw UsageError("missing required option '--output <dir>'") }
        do {
            guard movers == nil || preset == "sr" else { throw UsageError("--movers applies to the sr preset only") }
            if preset == "stars" {
                guard noise == nil else { throw UsageError("--noise does not apply to the stars preset (its noise is the sensor's)") }
                guard format != .jpeg else { throw UsageError("the stars preset writes 16-bit frames: use --format png, tiff or fits") }
                var c = StarFieldConfig()
                if let width { c.width = width }
                if let height { c.height = height }
                if let frames { c.frameCount = frames }
                if let seed { c.seed = seed }
                if let maxShift { c.maxShift = maxShift }
                if let maxRotation { c.maxRotation = maxRotation }
                if let channels { c.channels = channels }
                if let calibrationFrames { c.calibrationFrames = calibrationFrames }
                try c.validate()
                return .stars(c)
            }
            if preset == "sr" {
                guard maxRotation == nil, channels == nil, calibrationFrames == nil else {
                    throw UsageError("--max-rotation, --channels and --calibration-frames apply to the stars preset only")
                }
                guard format == nil || format == .png else { throw UsageError("the sr preset writes 16-bit PNG frames") }
                let w = width ?? 256, h = height ?? 256, n = frames ?? 24
                guard w >= 8, h >= 8, w * h <= 16_000_000, n >= 1, n <= 1000 else {
                    throw UsageError("sr: width and height ≥ 8 (at most 16 MP) and 1 to 1000 frames")
                }
                let shift = maxShift ?? 2, sigma = noise ?? 0.01
                guard shift >= 0, shift <= 64, sigma >= 0, sigma <= 0.5 else { throw UsageError("sr: --max-shift 0…64, --noise 0…0.5") }
                let discs = movers ?? 0
                guard (0...100).contains(discs) else { throw UsageError("sr: --movers 0…100") }
                return .superResolution(width: w, height: h, frames: n, seed: seed ?? 1, maxShift: shift, noise: sigma, movers: discs)
            }
            guard maxRotation == nil, channels == nil, calibrationFrames == nil else {
                throw UsageError("--max-rotation, --channels and --calibration-frames apply to the stars preset only")
            }
            guard var c = SceneConfig.preset(named: preset) else { throw UsageError("unknown preset '\(preset)'") }
            if let width { c.width = width }
            if let height { c.height = height }
            if let frames { c.frameCount = frames }
            if let seed { c.seed = seed }
            if let maxShift { c.maxShift = maxShift }
            if let noise { c.noiseSigma = noise }
            try c.validate()
            return .burst(c)
        } catch let e as UsageError {
            throw e
        } catch let e as SceneGenError {
            throw UsageError(e.description)
        } catch {
            throw UsageError("\(error)")
        }
    }
}

/// A command-line mistake: printed with the usage line, exit status 2.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

func printError(_ s: String) {
    FileHandle.standardError.write(Data((s + "\n").utf8))
}

let arguments = Array(CommandLine.arguments.dropFirst())
let command: MakeScene
let job: MakeScene.Job
do {
    guard let parsed = try MakeScene.parse(arguments) else {
        print(MakeScene.help)
        exit(0)
    }
    command = parsed
    job = try command.job()
} catch {
    printError("make-scene: error: \(error.message)")
    printError("Usage: make-scene [--preset street|crowd|trail|stars|sr] [--width W] [--height H] [--frames N] [--seed S] [--max-shift PX] [--noise SIGMA] [--movers N] [--format jpg|png|tiff|fits] [--quality Q] --output DIR")
    printError("  See 'make-scene --help' for more information.")
    exit(2)
}

let output = command.output ?? "."
do {
    // Frame by frame: a big burst never has to fit in memory at once.
    switch job {
    case .burst(let config):
        let shifts = try SceneGenerator.write(config, to: output, format: command.format ?? .jpeg, quality: command.quality)
        let maxShift = shifts.map { max(abs($0.dx), abs($0.dy)) }.max() ?? 0
        print("make-scene: wrote \(config.frameCount) \(config.width)×\(config.height) \(config.preset) frames, truth.png, mask.png and truth.json to \(output) (seed \(config.seed), max |shift| \((maxShift * 100).rounded() / 100) px)")
    case .stars(let config):
        let field = try StarField(config)
        try field.write(to: output, format: command.format ?? .png)
        let maxRotation = field.rotations.map(abs).max() ?? 0
        print("make-scene: wrote \(config.frameCount) \(config.width)×\(config.height) star-field lights and \(config.calibrationFrames) bias, dark and flat frames each, truth and truth.json to \(output) (seed \(config.seed), \(field.stars.count) stars, max |rotation| \((maxRotation * 1000).rounded() / 1000)°)")
    case let .superResolution(width, height, frames, seed, maxShift, noise, movers):
        let scene = SuperResolutionScene(width: width, height: height, frameCount: frames, seed: seed,
                                         maxShift: maxShift, noise: noise, movers: movers)
        try scene.write(to: output)
        let mask = movers > 0 ? ", mask.png" : ""
        print("make-scene: wrote \(frames) \(width)×\(height) super-resolution frames, truth.png (\(2 * width)×\(2 * height))\(mask) and truth.json to \(output) (seed \(seed))")
    }
} catch {
    printError("make-scene: error: \(error)")
    exit(1)
}
