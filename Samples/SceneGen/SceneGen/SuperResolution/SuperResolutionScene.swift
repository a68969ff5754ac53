public import Stacker
import Foundation

/// A burst for super-resolution with its truth at twice the frame size:
/// a scene of hard-edged shapes, bar groups finer than a frame pixel and a
/// zone plate, seen by `frameCount` frames, each shifted by a random
/// subpixel offset, integrated over its pixel (a box, 2 × 2 truth pixels)
/// and given Gaussian noise.
///
/// Coordinates as in `Transform`: frame `i`'s pixel `(x, y)` shows the
/// reference at `(x + dx, y + dy)` and integrates the scene over the unit
/// square around it; truth pixel `(X, Y)` integrates the scene over
/// `[X/2 − ½, (X+1)/2 − ½] × [Y/2 − ½, (Y+1)/2 − ½]` of the reference.
/// Both are box integrals by a 4 × 4 grid of point samples per pixel.
///
/// Deterministic: shapes, shifts and noise come from `SplitMix64` streams
/// of `seed`.
public struct SuperResolutionScene: Sendable {
    /// Frame width in pixels (the truth is twice as wide).
    public let width: Int
    /// Frame height in pixels.
    public let height: Int
    /// The frames (frame 0 is the reference, shift 0), 3 channels, 0…1.
    public let frames: [Image]
    /// The noise-free scene at twice the frame size, on the reference's grid.
    public let truth: Image
    /// Each frame's true shift (frame 0: `(0, 0)`).
    public let shifts: [FrameShift]

    /// Renders the scene. `maxShift`: shifts uniform in ±maxShift pixels;
    /// `noise`: σ of the Gaussian noise added to every sample.
    public init(width: Int = 96, height: Int = 96, frameCount: Int = 24, seed: UInt64 = 1,
                maxShift: Double = 2, noise: Double = 0.01) {
        self.width = width
        self.height = height
        let picture = SuperResolutionPicture(width: Double(width), height: Double(height), margin: maxShift + 1, seed: seed)
        var rng = SplitMix64(seed: seed, stream: 0x5352)
        shifts = (0..<frameCount).map { i in
            i == 0 ? FrameShift(dx: 0, dy: 0) : FrameShift(dx: rng.uniform(-maxShift, maxShift), dy: rng.uniform(-maxShift, maxShift))
        }
        frames = shifts.enumerated().map { i, shift in
            var noiseSource = SplitMix64(seed: seed, stream: 0x4E4F, UInt64(i))
            return picture.render(width: width, height: height, pixelSize: 1, origin: (shift.dx - 0.5, shift.dy - 0.5),
                                  noise: noise, rng: &noiseSource)
        }
        var silent = SplitMix64(seed: 0)
        truth = picture.render(width: 2 * width, height: 2 * height, pixelSize: 0.5, origin: (-0.5, -0.5),
                               noise: 0, rng: &silent)
    }

    /// Writes `frames/frame_000.png …` (16-bit), `truth.png` (16-bit, twice
    /// the size) and `truth.json` (`{"preset": "super-resolution", "width",
    /// "height", "truthWidth", "truthHeight", "frames": [{"path", "dx", "dy"}…]}`)
    /// into `folder`, atomically each.
    public func write(to folder: String) throws {
        let options = EncodeOptions(quality: 100, bitDepth: 16)
        try Scene.makeFolder(folder + "/frames")
        var entries: [String] = []
        for (i, frame) in frames.enumerated() {
            let path = "frames/frame_" + String(format: "%03d", i) + ".png"
            try ImageFile.write(frame, to: folder + "/" + path, options: options)
            entries.append("{\"path\": \"\(path)\", \"dx\": \(shifts[i].dx), \"dy\": \(shifts[i].dy)}")
        }
        try ImageFile.write(truth, to: folder + "/truth.png", options: options)
        let json = "{\"version\": 1, \"preset\": \"super-resolution\", \"width\": \(width), \"height\": \(height), "
            + "\"truthWidth\": \(2 * width), \"truthHeight\": \(2 * height), \"truth\": \"truth.png\", "
            + "\"frames\": [\n  " + entries.joined(separator: ",\n  ") + "\n]}\n"
        try AtomicFile.write(Array(json.utf8), to: folder + "/truth.json")
    }
}
