public import Stacker
public import Registration
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
    /// On the truth's grid, 1 where a moving object covered the scene in
    /// any frame (grown by one truth pixel), else 0; all 0 without movers.
    public let transientMask: Plane

    /// Renders the scene. `maxShift`: shifts uniform in ±maxShift pixels;
    /// `noise`: σ of the Gaussian noise added to every sample; `movers`:
    /// how many small discs (radius 1.5–3 px, a random colour) cross the
    /// scene, each at a constant velocity of 1.5–3 px per frame, in the
    /// frames but not in the truth (a handheld burst of a street).
    public init(width: Int = 96, height: Int = 96, frameCount: Int = 24, seed: UInt64 = 1,
                maxShift: Double = 2, noise: Double = 0.01, movers moverCount: Int = 0) {
        self.width = width
        self.height = height
        let picture = SuperResolutionPicture(width: Double(width), height: Double(height), margin: maxShift + 1, seed: seed)
        var rng = SplitMix64(seed: seed, stream: 0x5352)
        shifts = (0..<frameCount).map { i in
            i == 0 ? FrameShift(dx: 0, dy: 0) : FrameShift(dx: rng.uniform(-maxShift, maxShift), dy: rng.uniform(-maxShift, maxShift))
        }
        let paths = Self.moverPaths(count: moverCount, width: Double(width), height: Double(height), frameCount: frameCount, seed: seed)
        let movers = (0..<frameCount).map { i in paths.map { $0(i) } }
        frames = shifts.enumerated().map { i, shift in
            var noiseSource = SplitMix64(seed: seed, stream: 0x4E4F, UInt64(i))
            return picture.render(width: width, height: height, pixelSize: 1, origin: (shift.dx - 0.5, shift.dy - 0.5),
                                  noise: noise, movers: movers[i], rng: &noiseSource)
        }
        // Truth pixel (X, Y) is centred on reference point ((X + ½)/2 − ½, (Y + ½)/2 − ½).
        var mask = Plane(width: 2 * width, height: 2 * height)
        for y in 0..<mask.height {
            for x in 0..<mask.width {
                let rx = (Double(x) + 0.5) / 2 - 0.5, ry = (Double(y) + 0.5) / 2 - 0.5
                let covered = movers.joined().contains { m in
                    let dx = rx - m.cx, dy = ry - m.cy, r = m.radius + 0.5
                    return dx * dx + dy * dy <= r * r
                }
                if covered { mask.pixels[y * mask.width + x] = 1 }
            }
        }
        transientMask = mask
        var silent = SplitMix64(seed: 0)
        truth = picture.render(width: 2 * width, height: 2 * height, pixelSize: 0.5, origin: (-0.5, -0.5),
                               noise: 0, rng: &silent)
    }

    /// `count` straight paths across a `width × height` scene: each a
    /// function from frame index to where its disc is in that frame.
    private static func moverPaths(count: Int, width: Double, height: Double, frameCount: Int,
                                   seed: UInt64) -> [@Sendable (Int) -> SuperResolutionPicture.Mover] {
        var rng = SplitMix64(seed: seed, stream: 0x4D56)
        return (0..<count).map { _ in
            let radius = rng.uniform(1.5, 3), speed = rng.uniform(1.5, 3), angle = rng.uniform(0, 2 * Double.pi)
            let colour = (rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0, 1))
            let vx = speed * Math.cos(angle), vy = speed * Math.sin(angle)
            // Centred so that the path's middle frame is inside the scene.
            let midX = rng.uniform(0.2, 0.8) * width, midY = rng.uniform(0.2, 0.8) * height
            let middle = Double(frameCount - 1) / 2
            return { i in
                let t = Double(i) - middle
                return SuperResolutionPicture.Mover(cx: midX + vx * t, cy: midY + vy * t, radius: radius, colour: colour)
            }
        }
    }

    /// Writes `frames/frame_000.png …` (16-bit), `truth.png` (16-bit, twice
    /// the size), with moving discs `mask.png` (`transientMask`, 8-bit), and
    /// `truth.json` (`{"preset": "super-resolution", "width", "height",
    /// "truthWidth", "truthHeight", "frames": [{"path", "dx", "dy"}…]}`)
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
        if transientMask.pixels.contains(where: { $0 > 0 }) { try Scene.writeMask(transientMask, to: folder) }
        let json = "{\"version\": 1, \"preset\": \"super-resolution\", \"width\": \(width), \"height\": \(height), "
            + "\"truthWidth\": \(2 * width), \"truthHeight\": \(2 * height), \"truth\": \"truth.png\", "
            + "\"frames\": [\n  " + entries.joined(separator: ",\n  ") + "\n]}\n"
        try AtomicFile.write(Array(json.utf8), to: folder + "/truth.json")
    }
}
