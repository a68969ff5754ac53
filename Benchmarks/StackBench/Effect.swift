#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Registration
import Stacker

/// The `effect` case (issue 29: a 12 MP photo's blur effect in under 0.5 s
/// on one core): a generated 4032 × 3024 portrait (JPEG q`Burst.quality`,
/// a textured subject in front of a textured background) with a 768 × 576
/// disparity map beside it (16-bit PNG, the size an iPhone stores), timed
/// in this process on its one calling thread, in rounds so each figure
/// compares runs made in the same phase of a shared machine:
/// - the decode floor of the same JPEG: TurboJPEG to RGB8 (`RawTurboJPEG`),
///   and `ImageFile.read` (to planar Float, what the effect starts from);
/// - the depth map read and brought to the photo's grid
///   (`PortraitData.sideCar(_:)`, `aligned(to:)`: joint bilateral
///   upsampling), then the auto focus, band mask and radius map from it;
/// - the blur stage alone: `DepthEffect.blur.apply(to:mask:radius:)` with
///   the mask and radius map made beforehand (variable box passes and the
///   blend behind the subject);
/// - the whole `PortraitEffect.apply` (read and decode the photo, read the
///   depth map, joint bilateral upsampling, auto focus, mask, radius, blur;
///   no encode).
/// Each sample has its wall time and the process's CPU time (user +
/// system), which a busy machine does not inflate.
struct EffectBench {
    static let width = 4032, height = 3024
    static let depthWidth = 768, depthHeight = 576
    static var megapixels: Double { Double(width * height) / 1e6 }

    /// The photo and depth map in `folder`, generated when missing.
    static func files(in folder: String, log: (String) -> Void) throws -> (photo: String, depth: String) {
        let photo = folder + "/portrait-\(width)x\(height)-noise-q\(Burst.quality).jpg", depth = folder + "/portrait-disparity.png"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: photo) || !FileManager.default.fileExists(atPath: depth) {
            log("[effect] generating a \(width)×\(height) portrait and its \(depthWidth)×\(depthHeight) disparity map …")
            try ImageFile.write(portrait(), to: photo, options: EncodeOptions(quality: Burst.quality))
            try ImageFile.write(Image(width: depthWidth, height: depthHeight, planes: [disparity()]), to: depth,
                                options: EncodeOptions(bitDepth: 16))
        }
        return (photo, depth)
    }

    /// The subject's outline in coordinates scaled to 0…1: a head over a trunk.
    static func inSubject(_ u: Float, _ v: Float) -> Bool {
        let du = (u - 0.5) / 0.16, dv = (v - 0.38) / 0.2
        return du * du + dv * dv <= 1 || (abs(u - 0.5) <= 0.25 && v >= 0.6)
    }

    /// The photo: a checkered subject in warm colours, a striped background
    /// in cool ones with a gentle vertical gradient (texture ±0.08), and
    /// per-sample noise (±0.03, a hash of the sample's index) so the JPEG
    /// costs what a photo's does to decode, not what a flat drawing's does.
    static func portrait() -> Image {
        var planes = (0..<3).map { _ in [Float](repeating: 0, count: width * height) }
        let subject: [Float] = [0.85, 0.7, 0.2], background: [Float] = [0.2, 0.4, 0.65]
        for y in 0..<height {
            let v = Float(y) / Float(height)
            for x in 0..<width {
                let near = inSubject(Float(x) / Float(width), v)
                let texture: Float = near ? ((x / 9 + y / 9) % 2 == 0 ? 0.08 : -0.08) : (x % 12 < 6 ? 0.08 : -0.08)
                for c in 0..<3 {
                    let i = y * width + x
                    planes[c][i] = (near ? subject[c] : background[c] + 0.1 * (v - 0.5)) + texture + noise(3 * i + c)
                }
            }
        }
        return Image(width: width, height: height, planes: planes.map { Plane(width: width, height: height, pixels: $0) })
    }

    /// A repeatable value in −0.03…0.03 for sample `i` (an integer hash).
    static func noise(_ i: Int) -> Float {
        var h = UInt32(truncatingIfNeeded: i) &* 0x9E37_79B1
        h ^= h >> 15
        h = h &* 0x85EB_CA77
        h ^= h >> 13
        return (Float(h & 0xFFFF) / 65535 - 0.5) * 0.06
    }

    /// The disparity map (white = near): the subject at 0.8, the background
    /// falling from 0.35 at the bottom to 0.1 at the top (farther up).
    static func disparity() -> Plane {
        var p = Plane(width: depthWidth, height: depthHeight)
        for y in 0..<depthHeight {
            let v = (Float(y) + 0.5) / Float(depthHeight)
            for x in 0..<depthWidth {
                p[x, y] = inSubject((Float(x) + 0.5) / Float(depthWidth), v) ? 0.8 : 0.1 + 0.25 * v
            }
        }
        return p
    }

    /// User + system CPU seconds of this process so far.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Runs `body` once; its wall and CPU seconds.
    static func timed(_ body: () throws -> Void) rethrows -> Sample {
        let load = loadAverage()
        let (w0, c0) = (now(), cpuSeconds())
        try body()
        return Sample(wall: now() - w0, cpu: cpuSeconds() - c0, load: load)
    }
}

extension Bench {
    func effectCases() throws {
        let b = EffectBench.self
        let (photo, depthMap) = try b.files(in: settings.work + "/effect", log: log)
        var options = EffectOptions()
        options.effect = .blur
        // The blur stage's inputs, made once as PortraitEffect.apply makes them.
        let image = try ImageFile.read(photo).image
        let nearness = try PortraitData.sideCar(depthMap).aligned(to: image).nearness!
        let focus = EffectMask.autoFocus(nearness)
        let mask = EffectMask.band(nearness, focus: focus, width: options.width, slope: options.slope)
        let radius = DepthEffect.blurRadius(nearness: nearness, focus: focus, width: options.width, image: image)
        let blurred = radius.pixels.filter { $0 >= 0.5 }.count
        let raw = try RawTurboJPEG()
        let names = (raw: "effect: decode floor raw 12MP", float: "effect: decode floor float 12MP",
                     depth: "effect: depth read + upsampling 12MP", mask: "effect: focus + mask + radius 12MP",
                     blur: "effect: blur stage 12MP", apply: "effect: PortraitEffect.apply blur 12MP")
        var samples: [String: [Sample]] = [:]
        for r in 0..<settings.repeats {
            log("[effect] round \(r + 1) of \(settings.repeats) …")
            samples[names.raw, default: []].append(try b.timed { try raw.decode(path: photo) })
            samples[names.float, default: []].append(try b.timed { _ = try ImageFile.read(photo) })
            samples[names.depth, default: []].append(try b.timed { _ = try PortraitData.sideCar(depthMap).aligned(to: image) })
            samples[names.mask, default: []].append(b.timed {
                let f = EffectMask.autoFocus(nearness)
                _ = EffectMask.band(nearness, focus: f, width: options.width, slope: options.slope)
                _ = DepthEffect.blurRadius(nearness: nearness, focus: f, width: options.width, image: image)
            })
            samples[names.blur, default: []].append(b.timed { _ = DepthEffect.blur.apply(to: image, mask: mask, radius: radius) })
            samples[names.apply, default: []].append(try b.timed {
                guard try PortraitEffect.apply(to: photo, depthMap: FilePath(depthMap), options: options) != nil else {
                    throw BenchError("\(photo): PortraitEffect.apply found no depth")
                }
            })
        }
        let what = [names.raw: "tjDecompress2 to RGB8, file read included, one thread",
                    names.float: "ImageFile.read: decode to planar Float, one thread",
                    names.depth: "PortraitData.sideCar + aligned(to:): PNG read, joint bilateral upsampling, one thread",
                    names.mask: "EffectMask.autoFocus, band, DepthEffect.blurRadius, one thread",
                    names.blur: "DepthEffect.blur.apply with mask and radius given (box passes + blend), one thread",
                    names.apply: "PortraitEffect.apply: read, decode, side-car depth, upsampling, mask, blur; no encode; one thread"]
        var cases: [String: CaseResult] = [:]
        for name in [names.raw, names.float, names.depth, names.mask, names.blur, names.apply] {
            var c = CaseResult(name: name, what: what[name]!, frames: 1, megapixels: b.megapixels, samples: samples[name]!)
            c.extra = ["cpu_s": c.medianCPU]
            c.note = String(format: "%.3f s wall, %.3f s CPU", c.medianWall, c.medianCPU)
            cases[name] = c
            report.cases.append(c)
            log("  \(name): \(c.note)")
        }
        cases[names.blur]!.extra["blurred_share"] = Double(blurred) / Double(radius.pixels.count)
        let blur = cases[names.blur]!, apply = cases[names.apply]!, floor = cases[names.float]!
        check("effect: blur stage, CPU s per 12 MP photo, one thread", blur.medianCPU, "≤ 0.5") { $0 <= 0.5 }
        check("effect: blur stage, wall s per 12 MP photo, one thread", blur.medianWall, "(info)") { _ in true }
        check("effect: PortraitEffect.apply blur, CPU s per 12 MP photo", apply.medianCPU, "(info)") { _ in true }
        check("effect: PortraitEffect.apply blur / float decode floor, CPU", apply.medianCPU / floor.medianCPU, "(info)") { _ in true }
        report.notes.append(String(format: "effect: focus %.2f (auto), %.0f %% of the photo blurred with radius ≥ 0.5 px, largest %.0f px",
                                   focus, 100 * Double(blurred) / Double(radius.pixels.count), radius.pixels.max() ?? 0))
    }
}
