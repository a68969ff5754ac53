import Foundation
import Registration
import Stacker
import Testing
import TestSupport

/// `--keep N|P%`: the best frames by quality are stacked, the others named.
@Suite("stack: --keep frame selection")
struct KeepCLITests {
    /// A street burst of 8 frames (PNG) in which frames 2, 4 and 6 are made
    /// bad: 2 blurred (a 7 × 7 box, three times), 4 drowned in noise
    /// (σ = 0.25), 6 shifted off the scene by half its width (the rest
    /// filled with its edge). Returns the frame paths.
    static func burstWithBadFrames(in dir: String) throws -> [String] {
        let jpegs = try CLIHarness.makeBurst(in: dir, frames: 8, width: 192, height: 128)
        var rng = TestRandom(seed: 71)
        var paths: [String] = []
        for (i, jpeg) in jpegs.enumerated() {
            var image = try ImageFile.read(jpeg).image
            switch i {
            case 2: for _ in 0..<3 { image = Image(width: image.width, height: image.height, planes: image.planes.map(boxBlur)) }
            case 4:
                image = Image(width: image.width, height: image.height, planes: image.planes.map { plane in
                    Plane(width: plane.width, height: plane.height,
                          pixels: plane.pixels.map { min(1, max(0, $0 + Float(0.25 * rng.gaussian()))) })
                })
            case 6:
                image = Image(width: image.width, height: image.height, planes: image.planes.map { plane in
                    var out = plane
                    for y in 0..<plane.height {
                        for x in 0..<plane.width { out[x, y] = plane[min(plane.width - 1, x + plane.width / 2), y] }
                    }
                    return out
                })
            default: break
            }
            let path = dir + "/frame\(i).png"
            try ImageFile.write(image, to: path, options: EncodeOptions(bitDepth: 8))
            paths.append(path)
        }
        return paths
    }

    /// A 7 × 7 box blur, edges clamped.
    static func boxBlur(_ p: Plane) -> Plane {
        var out = p
        for y in 0..<p.height {
            for x in 0..<p.width {
                var s: Float = 0
                for dy in -3...3 {
                    for dx in -3...3 {
                        s += p[min(p.width - 1, max(0, x + dx)), min(p.height - 1, max(0, y + dy))]
                    }
                }
                out[x, y] = s / 49
            }
        }
        return out
    }

    @Test("--keep 5 of 8 drops the blurred, noisy and shifted-off frames, names them in the report with the cut-off and on stderr, and stacks the others as if given alone",
          arguments: ["median", "average"])
    func dropsPlantedBadFrames(_ mode: String) throws {
        let dir = try CLIHarness.temporaryFolder("keep-\(mode)")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = try Self.burstWithBadFrames(in: dir)
        let run = try CLIHarness.run(["--mode", mode, "--keep", "5", "--report", dir + "/r.json", "--min-score", "0",
                                      "-o", dir + "/kept.png"] + frames)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try String(contentsOfFile: dir + "/r.json", encoding: .utf8)
        let json = try JSONSerialization.jsonObject(with: Data(report.utf8)) as! [String: Any]
        let records = json["frames"] as! [[String: Any]]
        let dropped = records.enumerated().filter { !($0.element["used"] as! Bool) }.map(\.offset)
        print("\(mode): scores \(records.map { $0["score"] as! Double })")
        #expect(dropped == [2, 4, 6], "dropped \(dropped)")
        let keep = json["keep"] as! [String: Any]
        let cutoff = keep["cutoff"] as! Double
        #expect(keep["measure"] as? String == "score" && keep["kept"] as? Int == 5)
        #expect((keep["dropped"] as! [[String: Any]]).count == 3)
        for i in dropped {
            let score = records[i]["score"] as! Double
            #expect(score < cutoff)
            #expect((records[i]["reason"] as! String).contains("cut-off"))
        }
        let note = run.stderr.split(separator: "\n").filter { $0.contains("--keep: dropped 3 of 8") }
        #expect(note.count == 1 && note[0].contains("frame2.png") && note[0].contains("frame6.png"), "stderr: \(run.stderr)")

        // The same frames given alone stack to the same bytes.
        let good = [0, 1, 3, 5, 7].map { frames[$0] }
        let alone = try CLIHarness.run(["--mode", mode, "--min-score", "0", "-q", "-o", dir + "/alone.png"] + good)
        #expect(alone.status == 0, "\(alone.stderr)")
        let a = try Data(contentsOf: URL(fileURLWithPath: dir + "/kept.png"))
        let b = try Data(contentsOf: URL(fileURLWithPath: dir + "/alone.png"))
        // The average under --keep comes from a store (a mean in doubles), the
        // streaming average of the 5 alone folds in floats: compare pixels.
        if mode == "median" {
            #expect(a == b)
        } else {
            let x = try ImageFile.read(dir + "/kept.png").image, y = try ImageFile.read(dir + "/alone.png").image
            let worst = zip(x.planes.flatMap(\.pixels), y.planes.flatMap(\.pixels)).map { abs($0 - $1) }.max()!
            #expect(worst <= 1.0 / 255 + 1e-6, "worst difference \(worst)")
        }
    }

    @Test("--keep 80% keeps round(0.8 · 8) = 6 frames")
    func percentage() throws {
        let dir = try CLIHarness.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = try Self.burstWithBadFrames(in: dir)
        let run = try CLIHarness.run(["--mode", "median", "--keep", "80%", "--min-score", "0", "--report", dir + "/r.json",
                                      "-o", dir + "/out.png"] + frames)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("--keep: dropped 2 of 8"), "stderr: \(run.stderr)")
    }

    @Test("bad --keep values exit 2 with a one-line error", arguments: ["0", "150%", "0%", "-3", "many", "2.5"])
    func badValues(_ value: String) throws {
        let run = try CLIHarness.run(["--keep", value, "a.png", "b.png"])
        #expect(run.status == 2)
        let first = run.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first == "stack: error: --keep needs a frame count ≥ 1 or a percentage above 0 and at most 100 such as 80%, got '\(value)'",
                "stderr: \(run.stderr)")
    }
}
