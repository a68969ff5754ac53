import Foundation
import Registration
import SceneGen
import Stacker
import Testing
import TestSupport

/// Helpers shared by the SceneGen suites.
enum SceneGenFixture {
    /// A small config from a preset; noise and size chosen per test.
    static func config(_ base: SceneConfig, width: Int = 320, height: Int = 240, frames: Int? = nil,
                       noise: Double = 0, seed: UInt64 = 7) -> SceneConfig {
        var c = base
        c.width = width
        c.height = height
        if let frames { c.frameCount = frames }
        c.noiseSigma = noise
        c.seed = seed
        return c
    }

    /// Frame `i`'s pixel showing reference pixel `(x, y)` (nearest), or nil
    /// when it falls outside the frame.
    static func framePixel(_ scene: Scene, frame i: Int, x: Int, y: Int) -> (x: Int, y: Int)? {
        let s = scene.shifts[i]
        let fx = Int((Double(x) - s.dx).rounded()), fy = Int((Double(y) - s.dy).rounded())
        guard fx >= 0, fy >= 0, fx < scene.config.width, fy < scene.config.height else { return nil }
        return (fx, fy)
    }

    /// Per reference pixel: the number of frames whose object mask covers it.
    static func coverageCounts(_ scene: Scene) -> [Int] {
        let w = scene.config.width, h = scene.config.height
        var counts = [Int](repeating: 0, count: w * h)
        for i in scene.frames.indices {
            let m = scene.objectMasks[i]
            for y in 0..<h {
                for x in 0..<w {
                    if let p = framePixel(scene, frame: i, x: x, y: y), m[p.x, p.y] > 0 { counts[y * w + x] += 1 }
                }
            }
        }
        return counts
    }
}

@Suite("SceneGen rendering")
struct SceneGenRenderingTests {
    @Test("the same config renders bit-identical scenes; another seed does not")
    func deterministic() {
        let c = SceneGenFixture.config(.street, frames: 6, noise: 0.02)
        let a = SceneGenerator.render(c), b = SceneGenerator.render(c)
        #expect(a.frames == b.frames)
        #expect(a.objectMasks == b.objectMasks)
        #expect(a.groundTruth == b.groundTruth)
        #expect(a.shifts == b.shifts)
        #expect(a.objects == b.objects)
        var d = c
        d.seed = c.seed + 1
        #expect(SceneGenerator.render(d).frames[0] != a.frames[0])
    }

    @Test("frame 0 is the reference: shift (0, 0) and, without noise, the truth outside the masks")
    func frameZeroIsTruth() {
        for preset in [SceneConfig.street, .crowd, .trail] {
            let s = SceneGenerator.render(SceneGenFixture.config(preset, noise: 0))
            #expect(s.shifts[0] == FrameShift(dx: 0, dy: 0))
            let mask = s.objectMasks[0].pixels
            var mismatches = 0
            for c in 0..<s.groundTruth.channels {
                let f = s.frames[0].planes[c].pixels, t = s.groundTruth.planes[c].pixels
                for i in f.indices where mask[i] == 0 && f[i] != t[i] { mismatches += 1 }
            }
            // Exact: frame 0 and the truth evaluate the same function at the same points.
            #expect(mismatches == 0, "\(preset.preset): \(mismatches) samples differ")
        }
    }

    @Test("a known integer shift reproduces the truth exactly (sign convention)")
    func integerShiftMatchesTruth() {
        var c = SceneGenFixture.config(.street, frames: 3, noise: 0)
        c.objectCount = 0
        c.explicitShifts = [FrameShift(dx: 0, dy: 0), FrameShift(dx: 3, dy: -2), FrameShift(dx: -5, dy: 4)]
        let s = SceneGenerator.render(c)
        let w = c.width, h = c.height
        for i in 1...2 {
            let dx = Int(c.explicitShifts![i].dx), dy = Int(c.explicitShifts![i].dy)
            var mismatches = 0, compared = 0
            for ch in 0..<3 {
                let f = s.frames[i].planes[ch], t = s.groundTruth.planes[ch]
                // frame_i(x, y) shows the reference at (x + dx, y + dy).
                for y in max(0, -dy)..<min(h, h - dy) {
                    for x in max(0, -dx)..<min(w, w - dx) {
                        compared += 1
                        if f[x, y] != t[x + dx, y + dy] { mismatches += 1 }
                    }
                }
            }
            // Exact: x + dx is computed exactly in Double for integer dx.
            #expect(compared > 0)
            #expect(mismatches == 0, "frame \(i): \(mismatches) of \(compared) samples differ")
        }
        // The opposite sign must not match (guards against a flipped convention).
        let f1 = s.frames[1].planes[1], t = s.groundTruth.planes[1]
        var wrong = 0
        for y in 10..<(h - 10) { for x in 10..<(w - 10) where f1[x, y] != t[x - 3, y + 2] { wrong += 1 } }
        #expect(wrong > (w - 20) * (h - 20) / 10)
    }

    @Test("subpixel shifts stay consistent: a half-pixel frame lies between its integer neighbours")
    func halfPixelShiftIsSmooth() {
        var c = SceneGenFixture.config(.street, frames: 2, noise: 0)
        c.objectCount = 0
        c.explicitShifts = [FrameShift(dx: 0, dy: 0), FrameShift(dx: 0.5, dy: 0)]
        let s = SceneGenerator.render(c)
        let f = s.frames[1].planes[1], t = s.groundTruth.planes[1]
        // Linear interpolation of the truth predicts the half-pixel frame; the scene
        // is band-limited (soft edges, texture ≤ 0.3 cycles/px), so the RMS error is
        // small against the image contrast (~0.2).
        var se = 0.0, n = 0
        for y in 0..<c.height { for x in 0..<(c.width - 1) {
            let p = 0.5 * (Double(t[x, y]) + Double(t[x + 1, y]))
            se += (Double(f[x, y]) - p) * (Double(f[x, y]) - p); n += 1
        } }
        let rms = (se / Double(n)).squareRoot()
        #expect(rms < 0.01, "RMS \(rms)")
    }

    @Test("noise has the configured sigma")
    func noiseSigma() {
        var c = SceneGenFixture.config(.street, frames: 1, noise: 0.02)
        c.objectCount = 0
        let s = SceneGenerator.render(c)
        var sum = 0.0, sum2 = 0.0, n = 0.0
        for ch in 0..<3 {
            let f = s.frames[0].planes[ch].pixels, t = s.groundTruth.planes[ch].pixels
            for i in f.indices where t[i] > 0.1 && t[i] < 0.9 {   // away from the clip at 0 and 1
                let d = Double(f[i] - t[i]); sum += d; sum2 += d * d; n += 1
            }
        }
        let mean = sum / n, sd = (sum2 / n - mean * mean).squareRoot()
        // 230 k samples: the estimate is within 1 % of σ; 5 % leaves room.
        #expect(abs(sd - 0.02) < 0.001, "sd \(sd)")
        #expect(abs(mean) < 0.0005, "mean \(mean)")
    }

    @Test("gray output is one plane")
    func grayChannel() {
        var c = SceneGenFixture.config(.street, width: 64, height: 48, frames: 2)
        c.channels = 1
        let s = SceneGenerator.render(c)
        #expect(s.frames.allSatisfy { $0.channels == 1 })
        #expect(s.groundTruth.channels == 1)
    }

    @Test("out-of-range configs are rejected by validate and clamped by render")
    func validation() {
        var c = SceneConfig.street
        c.width = 2
        #expect(throws: SceneGenError.self) { try c.validate() }
        let s = SceneGenerator.render(c)
        #expect(s.config.width == 8)
        c = .street
        c.noiseSigma = .nan
        #expect(throws: SceneGenError.self) { try c.validate() }
        #expect(SceneGenerator.render(SceneGenFixture.config(c, width: 16, height: 16, frames: 2)).frames.count == 2)
        #expect(throws: Never.self) { try SceneConfig.crowd.validate() }
    }

    @Test("truth.json lists every frame with its shift")
    func truthJSON() throws {
        let s = SceneGenerator.render(SceneGenFixture.config(.street, width: 32, height: 24, frames: 3))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(s.truthJSON().utf8)) as? [String: Any])
        #expect(json["version"] as? Int == 1)
        #expect(json["width"] as? Int == 32)
        #expect(json["reference"] as? Int == 0)
        #expect(json["preset"] as? String == "street")
        let frames = try #require(json["frames"] as? [[String: Any]])
        #expect(frames.count == 3)
        #expect(frames[0]["path"] as? String == "frame_000.jpg")
        let dx = try #require(frames[2]["dx"] as? Double)
        #expect(abs(dx - s.shifts[2].dx) < 1e-6)
    }
}

@Suite("SceneGen objects and defects")
struct SceneGenObjectTests {
    @Test("street: no reference pixel is covered in more than 30 % of frames")
    func streetCoverage() {
        let s = SceneGenerator.render(SceneGenFixture.config(.street, frames: 10))
        let limit = Int((s.config.objectCoverage * Double(s.config.frameCount)).rounded(.down))
        let counts = SceneGenFixture.coverageCounts(s)
        #expect(!s.objects.isEmpty)
        #expect((counts.max() ?? 0) <= limit, "max \(counts.max() ?? 0) > \(limit)")
        #expect((counts.max() ?? 0) >= 1)
    }

    @Test("crowd: up to 60 % coverage, but the background is the largest cluster at every pixel")
    func crowdBackgroundLargest() {
        let s = SceneGenerator.render(SceneGenFixture.config(.crowd, frames: 12))
        let n = s.config.frameCount
        let limit = Int((s.config.objectCoverage * Double(n)).rounded(.down))
        let counts = SceneGenFixture.coverageCounts(s)
        let maxCount = counts.max() ?? 0
        #expect(maxCount <= limit)
        // Crowded for real: some pixel is covered in more than 30 % of frames.
        #expect(Double(maxCount) > 0.3 * Double(n), "max coverage \(maxCount)/\(n)")
        // Objects of different colours are different clusters; objects sharing a colour
        // are one. Count each colour's frames per pixel (grown by 1 px, conservative).
        let w = s.config.width, h = s.config.height
        let border = Int(s.config.maxShift.rounded(.up)) + 2
        var worst = 0
        for y in stride(from: border, to: h - border, by: 2) {
            for x in stride(from: border, to: w - border, by: 2) {
                let background = n - counts[y * w + x]
                var perColour: [Int: Int] = [:]
                for f in 0..<n {
                    var seen = Set<Int>()
                    for o in s.objects where o.covers(x: Double(x), y: Double(y), frame: f, margin: 1.5) {
                        seen.insert(o.colourIndex)
                    }
                    for c in seen { perColour[c, default: 0] += 1 }
                }
                let top = perColour.values.max() ?? 0
                if top >= background { worst += 1 }
            }
        }
        #expect(worst == 0, "\(worst) pixels where an object colour ties or beats the background")
    }

    @Test("crowd objects use distinct, well separated colours")
    func crowdColours() {
        let s = SceneGenerator.render(SceneGenFixture.config(.crowd, frames: 12))
        let colours = Set(s.objects.map(\.colourIndex))
        #expect(colours.count >= 6)
    }

    @Test("trail: hot pixels sit at the same sensor position in every frame; the trail is on one frame")
    func trailDefects() throws {
        let c = SceneGenFixture.config(.trail, noise: 0.01)
        let s = SceneGenerator.render(c)
        #expect(s.hotPixels.count == c.hotPixelCount)
        #expect(s.objects.isEmpty)
        for p in s.hotPixels {
            let values = s.frames.map { f in f.planes.map { $0[p.x, p.y] } }
            // Identical in every frame (stuck, no noise) and bright.
            #expect(values.allSatisfy { $0 == values[0] })
            #expect((values[0].max() ?? 0) >= 0.8)
            #expect(s.objectMasks.allSatisfy { $0[p.x, p.y] == 1 })
        }
        let tf = try #require(s.trailFrame)
        #expect(tf != 0)
        let hotCount = Float(s.hotPixels.count)
        for (i, m) in s.objectMasks.enumerated() {
            let masked = m.pixels.reduce(0, +)
            if i == tf {
                // A line across the frame: at least the frame's smaller side × 1 px.
                #expect(masked - hotCount >= Float(min(c.width, c.height)))
            } else {
                #expect(masked == hotCount)
            }
        }
        // The trail is bright where it is fully covered.
        let f = s.frames[tf].luma, t = s.groundTruth.luma
        var brighter = 0
        for i in f.pixels.indices where s.objectMasks[tf].pixels[i] == 1 && f.pixels[i] > t.pixels[i] + 0.2 { brighter += 1 }
        #expect(brighter >= min(c.width, c.height) / 2)
    }
}

@Suite("SceneGen writing")
struct SceneGenWriteTests {
    @Test("writing into a folder that cannot be created throws instead of crashing")
    func unwritableFolder() throws {
        let folder = try TestFiles.temporaryFolder("scenegen")
        defer { TestFiles.remove(folder) }
        let file = folder + "/not-a-folder"
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        let c = SceneGenFixture.config(.street, width: 16, height: 16, frames: 2)
        #expect(throws: (any Error).self) { try SceneGenerator.write(c, to: file + "/burst") }
        #expect(throws: (any Error).self) { try SceneGenerator.render(c).write(to: file + "/burst") }
    }

    @Test("frame file names are zero-padded and follow the format")
    func fileNames() {
        #expect(Scene.frameFileName(0, format: .jpeg) == "frame_000.jpg")
        #expect(Scene.frameFileName(12, format: .png) == "frame_012.png")
        #expect(Scene.frameFileName(1234, format: .jpeg) == "frame_1234.jpg")
    }
}
