import Foundation
import Registration
import SceneGen
import Stacker
import Testing

/// The star-field generator's own contract: determinism, poses, the
/// sensor model and what the truth means.
@Suite("SceneGen star fields")
struct StarFieldGeneratorTests {
    static func config() -> StarFieldConfig {
        var c = StarFieldConfig()
        c.width = 256
        c.height = 192
        c.frameCount = 3
        c.calibrationFrames = 2
        c.seed = 3
        return c
    }

    @Test("frames are a pure function of the config; the reference's pose is the identity")
    func deterministic() throws {
        let a = try StarField(Self.config()), b = try StarField(Self.config())
        #expect(a.light(1) == b.light(1))
        #expect(a.dark(0) == b.dark(0))
        #expect(a.transforms[0] == .identity)
        #expect(a.light(1) != a.light(2))
        var other = Self.config()
        other.seed = 4
        #expect(try StarField(other).light(1) != a.light(1))
    }

    @Test("a bright star's centroid in a frame sits where the pose puts it (within 0.05 px)")
    func starsFollowThePose() throws {
        var c = Self.config()
        c.readNoise = 0
        c.skyLevel = 0
        c.darkCurrent = 0
        c.hotPixelCount = 0
        c.trail = false
        c.vignetting = 0
        let field = try StarField(c)
        let frame = field.light(2).planes[0]
        let bias = Float(c.biasLevel / 65535)
        let positions = field.starPositions(frame: 2)
        // The brightest star well inside the frame, alone within 8 px.
        let candidates = field.stars.indices.filter { i in
            let p = positions[i]
            guard p.x > 10, p.y > 10, p.x < Double(c.width - 11), p.y < Double(c.height - 11) else { return false }
            return !positions.indices.contains { j in
                j != i && abs(positions[j].x - p.x) < 8 && abs(positions[j].y - p.y) < 8
            }
        }
        let brightest = try #require(candidates.max { field.stars[$0].flux < field.stars[$1].flux })
        let p = positions[brightest]
        var sx = 0.0, sy = 0.0, sw = 0.0
        for y in Int(p.y) - 6...Int(p.y) + 6 {
            for x in Int(p.x) - 6...Int(p.x) + 6 {
                let v = Double(max(0, frame[x, y] - bias))
                sx += v * Double(x); sy += v * Double(y); sw += v
            }
        }
        // Shot noise on a ≥ 1500 e⁻ star moves a 13×13 centroid by ≲ 0.03 px.
        #expect(abs(sx / sw - p.x) < 0.05 && abs(sy / sw - p.y) < 0.05,
                "centroid (\(sx / sw), \(sy / sw)) vs pose (\(p.x), \(p.y)), flux \(field.stars[brightest].flux)")
    }

    @Test("the sensor model: bias level, dark current with hot pixels, vignetted flat")
    func sensorModel() throws {
        let field = try StarField(Self.config())
        let c = field.config
        func median(_ p: Plane) -> Double {
            let s = p.pixels.sorted()
            return Double(s[s.count / 2]) * 65535
        }
        // Medians of 49 152 samples: within 1 ADU of the model.
        #expect(abs(median(field.bias(0).planes[0]) - c.biasLevel) <= 1)
        #expect(abs(median(field.dark(0).planes[0]) - (c.biasLevel + c.darkCurrent / c.gain)) <= 1.5)
        let dark = field.dark(1).planes[0]
        for p in field.hotPixels {
            #expect(Double(dark[p.x, p.y]) * 65535 > c.biasLevel + 3000, "hot pixel \(p) is not hot")
        }
        let flat = field.flat(0).planes[0]
        let centre = Double(flat[c.width / 2, c.height / 2]) * 65535 - c.biasLevel
        let corner = Double(flat[0, 0]) * 65535 - c.biasLevel
        // Flat noise is √25000 ≈ 160 e⁻ per pixel: 2 % of the level at most.
        #expect(abs(centre / c.flatLevel - 1) < 0.02, "centre \(centre)")
        #expect(abs(corner / (c.flatLevel * (1 - c.vignetting)) - 1) < 0.03, "corner \(corner)")
    }

    @Test("a bad config is refused with the field named")
    func validation() {
        var c = Self.config()
        c.channels = 2
        #expect(throws: SceneGenError.invalidConfig(reason: "channels must be 1 or 3, got 2")) { try StarField(c) }
    }
}
