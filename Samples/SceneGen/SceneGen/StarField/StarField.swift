public import Registration

/// One star of a synthetic sky, placed in reference-frame coordinates.
public struct CatalogueStar: Sendable, Equatable {
    /// Position in the reference frame, pixels (pixel centres at integers).
    public var x: Double
    /// See `x`.
    public var y: Double
    /// Total flux in e⁻ per exposure (before vignetting).
    public var flux: Double
    /// Per-channel colour factor (one 1 for a mono sensor).
    public var colour: [Double]
}

/// A synthetic astrophotography session with exact ground truth: a star
/// catalogue, the pose of every light frame (field rotation, drift, scale),
/// the sensor's bias, dark current, hot pixels and vignetting, and a
/// satellite trail across one frame. Frames are rendered on demand (see
/// `StarField+Render.swift`), so a long session never has to fit in memory.
///
/// Poses follow `Transform`'s convention: `transforms[i]` maps frame `i`'s
/// pixel coordinates to the reference's (frame 0, whose transform is the
/// identity). Frame `i` is the reference turned by `rotations[i]` degrees
/// and scaled by `scales[i]` about the frame centre, then shifted:
/// `p_ref = s·R(θ)·(p_frame − c) + c + t`.
///
/// Deterministic: every random choice comes from a `SplitMix64` stream of
/// `config.seed` (noise per frame, kind and row), independent of threads.
public struct StarField: Sendable {
    /// The session's settings.
    public let config: StarFieldConfig
    /// The stars, in reference coordinates (they cover the reference frame
    /// plus a margin, so turned and shifted frames are filled too).
    public let stars: [CatalogueStar]
    /// Frame → reference transform of each light frame (frame 0: identity).
    public let transforms: [Transform]
    /// Field rotation of each frame in degrees (counter-clockwise on screen
    /// is negative: y points down).
    public let rotations: [Double]
    /// Scale of each frame relative to the reference.
    public let scales: [Double]
    /// The PSF FWHM of each frame in pixels.
    public let fwhms: [Double]
    /// The sky level of each frame in e⁻ per pixel at the frame centre.
    public let skyLevels: [Double]
    /// Hot pixels: sensor positions (same in every frame and dark).
    public let hotPixels: [SensorPixel]
    /// Extra dark current of each hot pixel, e⁻ per exposure.
    public let hotPixelCurrents: [Double]
    /// The mean of the flat-field (vignetting) function over the sensor:
    /// a calibrated light (flat normalised to mean 1) holds the sky's
    /// electrons times this, divided by the gain.
    public let meanFlat: Double
    /// The satellite trail, in the trail frame's own coordinates.
    let trail: Trail?

    /// Plans the session described by `config`.
    /// - Throws: `SceneGenError.invalidConfig` for an out-of-range field.
    public init(_ config: StarFieldConfig) throws {
        try config.validate()
        self.config = config
        let c = config
        let cx = Double(c.width - 1) / 2, cy = Double(c.height - 1) / 2

        var poseRNG = SplitMix64(seed: c.seed, stream: 0x504F_5345) // "POSE"
        var transforms: [Transform] = [], rotations: [Double] = [], scales: [Double] = []
        var fwhms: [Double] = [], skies: [Double] = []
        for i in 0..<c.frameCount {
            let theta = i == 0 ? 0 : poseRNG.uniform(-c.maxRotation, c.maxRotation)
            let scale = i == 0 ? 1 : 1 + poseRNG.uniform(-c.maxScale, c.maxScale)
            let tx = i == 0 ? 0 : poseRNG.uniform(-c.maxShift, c.maxShift)
            let ty = i == 0 ? 0 : poseRNG.uniform(-c.maxShift, c.maxShift)
            let fwhm = i == 0 ? c.fwhm.lowerBound : poseRNG.uniform(c.fwhm.lowerBound, c.fwhm.upperBound)
            let sky = i == 0 ? c.skyLevel : c.skyLevel * (1 + poseRNG.uniform(-c.skyVariation, c.skyVariation))
            let r = theta * Double.pi / 180
            let a = scale * Math.cos(r), b = scale * Math.sin(r)
            // p_ref = [a −b; b a]·(p − c) + c + t
            transforms.append(Transform(matrix: [a, -b, cx + tx - a * cx + b * cy,
                                                 b, a, cy + ty - b * cx - a * cy,
                                                 0, 0, 1]))
            rotations.append(theta)
            scales.append(scale)
            fwhms.append(fwhm)
            skies.append(sky)
        }
        self.transforms = transforms
        self.rotations = rotations
        self.scales = scales
        self.fwhms = fwhms
        skyLevels = skies

        // Stars over the reference frame plus the margin any pose can reach.
        let diagonal = (Double(c.width * c.width + c.height * c.height)).squareRoot()
        let margin = c.maxShift + diagonal / 2 * (Math.sin(c.maxRotation * Double.pi / 180) + c.maxScale) + 8
        let areaWidth = Double(c.width) + 2 * margin, areaHeight = Double(c.height) + 2 * margin
        let count = Int((areaWidth * areaHeight * c.starDensity).rounded())
        var starRNG = SplitMix64(seed: c.seed, stream: 0x5354_4152) // "STAR"
        let alpha = 1.2
        let ratio = Math.exp(-alpha * Math.log(c.starFlux.upperBound / c.starFlux.lowerBound))
        stars = (0..<count).map { _ in
            let x = starRNG.uniform(-margin, Double(c.width) + margin)
            let y = starRNG.uniform(-margin, Double(c.height) + margin)
            // Truncated Pareto: N(>F) ∝ F^−α between the flux bounds.
            let u = starRNG.unit()
            let flux = c.starFlux.lowerBound * Math.exp(-Math.log(1 - u * (1 - ratio)) / alpha)
            let t = starRNG.unit() // colour temperature: 0 red … 1 blue
            let colour = c.channels == 1 ? [1.0] : [1.2 - 0.4 * t, 1.0, 0.8 + 0.4 * t]
            return CatalogueStar(x: x, y: y, flux: flux, colour: colour)
        }

        var defectRNG = SplitMix64(seed: c.seed, stream: 0x484F_54) // "HOT"
        var seen = Set<SensorPixel>()
        var hot: [SensorPixel] = [], currents: [Double] = []
        while hot.count < c.hotPixelCount {
            let p = SensorPixel(x: defectRNG.below(c.width), y: defectRNG.below(c.height))
            guard seen.insert(p).inserted else { continue }
            hot.append(p)
            currents.append(defectRNG.uniform(c.hotPixelCurrent.lowerBound, c.hotPixelCurrent.upperBound))
        }
        hotPixels = hot
        hotPixelCurrents = currents
        trail = c.trailFrame == nil ? nil
            : Trail.random(width: c.width, height: c.height, width: c.trailWidth, rng: &defectRNG)

        var sum = 0.0
        for y in 0..<c.height {
            for x in 0..<c.width { sum += Self.vignetting(x: Double(x), y: Double(y), config: c) }
        }
        meanFlat = sum / Double(c.width * c.height)
    }

    /// The flat-field response at sensor pixel `(x, y)`: 1 at the centre,
    /// `1 − vignetting` at the corners, quadratic in the radius.
    public func flatResponse(x: Double, y: Double) -> Double { Self.vignetting(x: x, y: y, config: config) }

    static func vignetting(x: Double, y: Double, config c: StarFieldConfig) -> Double {
        let cx = Double(c.width - 1) / 2, cy = Double(c.height - 1) / 2
        let r2 = ((x - cx) * (x - cx) + (y - cy) * (y - cy)) / (cx * cx + cy * cy)
        return 1 - c.vignetting * r2
    }

    /// The stars' positions in frame `i`'s pixel coordinates (all of the
    /// catalogue, also those outside the frame), in catalogue order.
    public func starPositions(frame i: Int) -> [(x: Double, y: Double)] {
        guard let inverse = transforms[i].inverse else { return [] }
        return stars.map { inverse.apply(x: $0.x, y: $0.y) }
    }

    /// How much of sensor pixel `(x, y)` of the trail frame the satellite
    /// trail covers, 0…1 (0 everywhere when there is no trail).
    public func trailCoverage(x: Double, y: Double) -> Double {
        guard let trail else { return 0 }
        return min(1, max(0, trail.halfWidth + 0.5 - abs(trail.nx * x + trail.ny * y - trail.offset)))
    }

    /// The sky background of frame `i` at reference position `(x, y)`, e⁻:
    /// the frame's level with the gradient (fixed on the sky) across it.
    func sky(frame i: Int, x: Double, y: Double) -> Double {
        let c = config
        // Gradient along a fixed direction, the level changing by
        // `skyGradient` between the frame's extreme points along it.
        let gx = 0.8, gy = 0.6
        let extent = Double(c.width) * gx + Double(c.height) * gy
        let along = ((x - Double(c.width - 1) / 2) * gx + (y - Double(c.height - 1) / 2) * gy) / extent
        return skyLevels[i] * (1 + c.skyGradient * along)
    }
}
