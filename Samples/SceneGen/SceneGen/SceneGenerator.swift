internal import Registration
public import Stacker
import Dispatch

/// Renders synthetic bursts with exact ground truth.
///
/// Frame `i` with true shift `(dxᵢ, dyᵢ)` is `frameᵢ(x, y) = world(x + dxᵢ, y + dyᵢ)`
/// plus moving objects (placed in reference coordinates), the optional trail
/// and hot pixels, then Gaussian noise clipped to 0…1. The ground truth is
/// `world(x, y)`: frame 0 without noise, objects or defects. `world` is
/// pixel-integrated (see `StreetWorld`), so subpixel shifts are consistent.
///
/// Deterministic: every random choice comes from `SplitMix64` streams derived
/// from `config.seed` (noise per frame and row), so the output does not depend
/// on the thread count. Rows are rendered in parallel.
public enum SceneGenerator {
    /// Renders the scene described by `config` (clamped into range first;
    /// call `config.validate()` to reject bad values instead). Holds every
    /// frame in memory; for big bursts use `write(_:to:format:quality:)`.
    public static func render(_ config: SceneConfig) -> Scene {
        let plan = ScenePlan(config)
        var frames: [Image] = []
        var masks: [Plane] = []
        for i in 0..<plan.config.frameCount {
            let r = plan.frame(i)
            frames.append(r.image)
            masks.append(r.mask)
        }
        return Scene(config: plan.config, frames: frames, groundTruth: plan.truth(), shifts: plan.shifts,
                     objectMasks: masks, objects: plan.objects, hotPixels: plan.hotPixels,
                     trailFrame: plan.trailFrame)
    }

    /// Renders and writes the scene frame by frame, holding one frame in memory
    /// at a time; the files are those of `Scene.write(to:format:quality:)`.
    /// - Returns: the true shifts, frame 0 first.
    /// - Throws: as `Scene.write(to:format:quality:)`.
    @discardableResult
    public static func write(_ config: SceneConfig, to folder: String, format: ImageFormat = .jpeg,
                             quality: Int = 95) throws -> [FrameShift] {
        let plan = ScenePlan(config)
        try Scene.makeFolder(folder)
        var mask = Plane(width: plan.config.width, height: plan.config.height)
        for i in 0..<plan.config.frameCount {
            let frame = plan.frame(i)
            try Scene.writeFrame(frame.image, index: i, to: folder, format: format, quality: quality)
            Scene.addTransient(frame.mask, by: .translation(dx: plan.shifts[i].dx, dy: plan.shifts[i].dy), to: &mask)
        }
        try Scene.writeMask(mask, to: folder)
        try Scene.writeTruth(plan.truth(), json: Scene.truthJSON(config: plan.config, shifts: plan.shifts,
                                                                 objectCount: plan.objects.count,
                                                                 hotPixels: plan.hotPixels,
                                                                 trailFrame: plan.trailFrame, format: format),
                             to: folder)
        return plan.shifts
    }

    /// Frame 0 at (0, 0), the others uniform in ±maxShift (or the explicit shifts).
    static func makeShifts(_ c: SceneConfig) -> [FrameShift] {
        if let s = c.explicitShifts { return s }
        var rng = SplitMix64(seed: c.seed, stream: 0x5348_4946_54) // "SHIFT"
        return (0..<c.frameCount).map { i in
            let dx = rng.uniform(-c.maxShift, c.maxShift), dy = rng.uniform(-c.maxShift, c.maxShift)
            return i == 0 ? FrameShift(dx: 0, dy: 0) : FrameShift(dx: dx, dy: dy)
        }
    }

    /// Distinct random sensor positions.
    static func makeHotPixels(_ c: SceneConfig, rng: inout SplitMix64) -> [SensorPixel] {
        var seen = Set<SensorPixel>()
        var out: [SensorPixel] = []
        var tries = 0
        while out.count < c.hotPixelCount, tries < c.hotPixelCount * 20 + 100 {
            tries += 1
            let p = SensorPixel(x: rng.below(c.width), y: rng.below(c.height))
            if seen.insert(p).inserted { out.append(p) }
        }
        return out
    }
}

/// Everything about a scene except its pixels: the layout, shifts, objects
/// and defects. Frames are rendered from it on demand.
struct ScenePlan: Sendable {
    let config: SceneConfig
    let shifts: [FrameShift]
    let world: StreetWorld
    let objects: [SceneObject]
    let hotPixels: [SensorPixel]
    let trailFrame: Int?
    let trail: Trail?

    init(_ config: SceneConfig) {
        let c = config.sanitised()
        self.config = c
        shifts = SceneGenerator.makeShifts(c)
        let margin = shifts.reduce(0.0) { max($0, abs($1.dx), abs($1.dy)) } + 8
        world = StreetWorld(width: c.width, height: c.height, margin: margin, seed: c.seed)
        var objectRNG = SplitMix64(seed: c.seed, stream: 0x4F42_4A45_4354) // "OBJECT"
        objects = ObjectPlanner.plan(c, rng: &objectRNG)
        var defectRNG = SplitMix64(seed: c.seed, stream: 0x4445_4645_4354) // "DEFECT"
        hotPixels = SceneGenerator.makeHotPixels(c, rng: &defectRNG)
        trailFrame = c.trail ? min(c.frameCount - 1, max(c.frameCount / 2, c.frameCount > 1 ? 1 : 0)) : nil
        trail = c.trail ? Trail.random(width: c.width, height: c.height, width: c.trailWidth, rng: &defectRNG) : nil
    }

    /// Frame `i` and its object mask.
    func frame(_ i: Int) -> (image: Image, mask: Plane) {
        FrameRenderer(world: world, config: config, frame: i, shift: shifts[i],
                      objects: objects.filter { $0.visibleFrames.contains(i) },
                      trail: i == trailFrame ? trail : nil, hotPixels: hotPixels,
                      noiseSigma: config.noiseSigma).render()
    }

    /// The ground truth: the world on the reference grid, nothing else.
    func truth() -> Image {
        FrameRenderer(world: world, config: config, frame: -1, shift: FrameShift(dx: 0, dy: 0),
                      objects: [], trail: nil, hotPixels: [], noiseSigma: 0).render().image
    }
}

/// A straight bright line across a frame, in that frame's own coordinates:
/// the points with `|nx·x + ny·y − offset| ≤ halfWidth`.
struct Trail: Sendable {
    var nx, ny, offset, halfWidth: Double
    var level: [Float] = [0.97, 0.97, 1.0]

    /// A line through a random point of the frame at 20°…70° from horizontal.
    static func random(width: Int, height: Int, width w: Double, rng: inout SplitMix64) -> Trail {
        let angle = rng.uniform(20, 70) * Double.pi / 180 * (rng.unit() < 0.5 ? 1 : -1)
        let px = Double(width) * rng.uniform(0.3, 0.7), py = Double(height) * rng.uniform(0.3, 0.7)
        let nx = -Math.sin(angle), ny = Math.cos(angle)
        return Trail(nx: nx, ny: ny, offset: nx * px + ny * py, halfWidth: w / 2)
    }
}

/// A pointer that may be shared by the rows of one parallel render; each row
/// writes only its own span.
struct SharedPointer: @unchecked Sendable {
    let base: UnsafeMutablePointer<Float>
}
