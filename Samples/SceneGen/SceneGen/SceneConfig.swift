/// Everything that defines a synthetic burst. A scene is a pure function of
/// its config: the same config renders bit-identical frames.
///
/// Units: sizes and shifts in pixels unless stated; sample values on the
/// 0…1 scale of `Image`. Start from a preset (`.street`, `.crowd`, `.trail`)
/// and change what you need, e.g. `var c = SceneConfig.street; c.width = 320`.
public struct SceneConfig: Sendable, Equatable {
    /// Preset name written to `truth.json` ("street", "crowd", "trail", or your own).
    public var preset: String
    /// Frame width in pixels (≥ 8).
    public var width: Int
    /// Frame height in pixels (≥ 8).
    public var height: Int
    /// Number of frames (≥ 1); frame 0 is the reference.
    public var frameCount: Int
    /// Seed for every random choice (layout, shifts, objects, noise).
    public var seed: UInt64
    /// Camera shake: each frame's `dx`, `dy` is uniform in `±maxShift` px
    /// (frame 0 is always `(0, 0)`). Ignored when `explicitShifts` is set.
    public var maxShift: Double
    /// Explicit per-frame shifts (count must equal `frameCount`; entry 0 should
    /// be `(0, 0)` to keep frame 0 the reference), or nil for random ones.
    public var explicitShifts: [FrameShift]?
    /// Standard deviation of the additive Gaussian noise (0…1 scale);
    /// results are clipped to 0…1. 0 gives exact noise-free frames.
    public var noiseSigma: Double
    /// Output channels: 3 (RGB) or 1 (gray, Rec. 601 luma of the colour scene).
    public var channels: Int
    /// How many moving objects to place (fewer when the coverage limit
    /// leaves no room for more).
    public var objectCount: Int
    /// Object size (its larger dimension) as a fraction of the frame height.
    public var objectSize: ClosedRange<Double>
    /// The largest fraction of frames in which any reference pixel may be
    /// covered by an object (enforced by construction), e.g. 0.3.
    public var objectCoverage: Double
    /// Objects in vivid, well separated colours (true) or muted clothing/car colours.
    public var colourfulObjects: Bool
    /// Enforce that at each pixel no single object colour covers as many frames
    /// as the background shows through (so the background is the largest cluster).
    public var backgroundIsLargestCluster: Bool
    /// Draw a satellite trail (a bright straight line) across one frame.
    public var trail: Bool
    /// Width of the trail in pixels (1…3).
    public var trailWidth: Double
    /// Number of hot pixels, fixed at the same sensor position in every frame.
    public var hotPixelCount: Int

    /// A config with every field given; presets are the usual starting point.
    public init(preset: String = "custom", width: Int = 640, height: Int = 480,
                frameCount: Int = 8, seed: UInt64 = 1, maxShift: Double = 6,
                explicitShifts: [FrameShift]? = nil, noiseSigma: Double = 0.01,
                channels: Int = 3, objectCount: Int = 10,
                objectSize: ClosedRange<Double> = 0.1...0.25,
                objectCoverage: Double = 0.3, colourfulObjects: Bool = false,
                backgroundIsLargestCluster: Bool = false, trail: Bool = false,
                trailWidth: Double = 2, hotPixelCount: Int = 0) {
        self.preset = preset
        self.width = width
        self.height = height
        self.frameCount = frameCount
        self.seed = seed
        self.maxShift = maxShift
        self.explicitShifts = explicitShifts
        self.noiseSigma = noiseSigma
        self.channels = channels
        self.objectCount = objectCount
        self.objectSize = objectSize
        self.objectCoverage = objectCoverage
        self.colourfulObjects = colourfulObjects
        self.backgroundIsLargestCluster = backgroundIsLargestCluster
        self.trail = trail
        self.trailWidth = trailWidth
        self.hotPixelCount = hotPixelCount
    }

    /// A street burst: 8 frames 640×480, shake ±6 px, noise σ 0.01, about 10
    /// pedestrians and cars in muted colours covering each pixel in ≤ 30 % of frames.
    /// Mean, median and mode stacks all remove the objects.
    public static let street = SceneConfig(preset: "street")

    /// A crowded street: 12 frames, about 40 objects in distinct vivid colours
    /// covering each pixel in up to 60 % of frames, yet at every pixel no single
    /// object colour occurs as often as the background (median fails, mode works).
    /// About `objectCount / 8` busy spots on the road are covered in 60 % of
    /// frames by parked objects of different light colours: there every
    /// channel's median lands on an object, while mode still finds the road.
    public static let crowd = SceneConfig(
        preset: "crowd", frameCount: 12, objectCount: 40, objectSize: 0.1...0.22,
        objectCoverage: 0.6, colourfulObjects: true, backgroundIsLargestCluster: true)

    /// Astro-style defects on the street scene: no moving objects, a bright
    /// 2 px satellite trail across one frame (frame `frameCount / 2`) and 40 hot
    /// pixels at fixed sensor positions (they do not move with the scene).
    /// Sigma-clipping removes both.
    public static let trail = SceneConfig(
        preset: "trail", frameCount: 10, noiseSigma: 0.015, objectCount: 0,
        trail: true, trailWidth: 2, hotPixelCount: 40)

    /// The named presets, for command lines.
    public static func preset(named name: String) -> SceneConfig? {
        switch name.lowercased() {
        case "street": return .street
        case "crowd": return .crowd
        case "trail": return .trail
        default: return nil
        }
    }

    /// Checks the ranges; `SceneGenerator.render` clamps silently instead.
    /// - Throws: `SceneGenError.invalidConfig` with a sentence naming the field.
    public func validate() throws {
        func bad(_ s: String) -> SceneGenError { .invalidConfig(reason: s) }
        guard width >= 8, height >= 8 else { throw bad("width and height must be at least 8 (got \(width)×\(height))") }
        guard width <= 100_000, height <= 100_000, width * height <= 400_000_000 else {
            throw bad("\(width)×\(height) is too large")
        }
        guard frameCount >= 1, frameCount <= 10_000 else { throw bad("frame count must be 1…10000 (got \(frameCount))") }
        guard maxShift.isFinite, maxShift >= 0 else { throw bad("max shift must be a finite number ≥ 0 (got \(maxShift))") }
        guard noiseSigma.isFinite, noiseSigma >= 0, noiseSigma <= 1 else { throw bad("noise sigma must be 0…1 (got \(noiseSigma))") }
        guard channels == 1 || channels == 3 else { throw bad("channels must be 1 or 3 (got \(channels))") }
        guard objectCount >= 0 else { throw bad("object count must be ≥ 0") }
        guard objectCoverage.isFinite, objectCoverage >= 0, objectCoverage <= 1 else { throw bad("object coverage must be 0…1") }
        guard objectSize.lowerBound > 0, objectSize.upperBound <= 1 else { throw bad("object size must be a fraction of the height in (0, 1]") }
        guard trailWidth.isFinite, trailWidth > 0, trailWidth <= 10 else { throw bad("trail width must be in (0, 10] px") }
        guard hotPixelCount >= 0, hotPixelCount <= width * height else { throw bad("hot pixel count must be 0…\(width * height)") }
        if let s = explicitShifts {
            guard s.count == frameCount else { throw bad("explicit shifts: \(s.count) given for \(frameCount) frames") }
            guard s.allSatisfy({ $0.dx.isFinite && $0.dy.isFinite }) else { throw bad("explicit shifts must be finite") }
        }
    }

    /// A copy with every field clamped into its valid range.
    func sanitised() -> SceneConfig {
        var c = self
        c.width = min(max(c.width, 8), 100_000)
        c.height = min(max(c.height, 8), 100_000)
        c.frameCount = min(max(c.frameCount, 1), 10_000)
        c.maxShift = c.maxShift.isFinite ? max(0, c.maxShift) : 0
        c.noiseSigma = c.noiseSigma.isFinite ? min(max(c.noiseSigma, 0), 1) : 0
        c.channels = c.channels == 1 ? 1 : 3
        c.objectCount = max(0, c.objectCount)
        c.objectCoverage = c.objectCoverage.isFinite ? min(max(c.objectCoverage, 0), 1) : 0
        let lo = min(max(c.objectSize.lowerBound, 0.005), 1)
        c.objectSize = lo...max(lo, min(c.objectSize.upperBound, 1))
        c.trailWidth = c.trailWidth.isFinite ? min(max(c.trailWidth, 0.5), 10) : 2
        c.hotPixelCount = min(max(c.hotPixelCount, 0), c.width * c.height)
        if let s = c.explicitShifts {
            var fixed = (0..<c.frameCount).map { $0 < s.count ? s[$0] : FrameShift(dx: 0, dy: 0) }
            for i in fixed.indices where !(fixed[i].dx.isFinite && fixed[i].dy.isFinite) {
                fixed[i] = FrameShift(dx: 0, dy: 0)
            }
            c.explicitShifts = fixed
        }
        return c
    }
}
