import Foundation
import Registration
import Stacker
import Testing

/// `stack FOLDER`: a folder stands for the image files it holds, told by
/// their first bytes, in natural name order.
@Suite("stack: folders as frame lists")
struct FolderFramesCLITests {
    /// The frame paths a run's report lists, in order.
    static func reportedPaths(_ report: String) throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: report))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let frames = try #require(object["frames"] as? [[String: Any]])
        return frames.compactMap { $0["path"] as? String }
    }

    @Test("natural order puts f2 before f10, compares digit runs as numbers and is total")
    func naturalOrder() {
        let names = ["f10.jpg", "f2.jpg", "f1.jpg", "f02.jpg", "f", "a9b", "a10", "g1", "f1a"].map { FilePath($0) }
        let sorted = names.sorted(by: FrameFolder.naturallyPrecedes).map(\.description)
        #expect(sorted == ["a9b", "a10", "f", "f1.jpg", "f1a", "f02.jpg", "f2.jpg", "f10.jpg", "g1"])
        for a in names {
            #expect(!FrameFolder.naturallyPrecedes(a, a))
            for b in names where a != b {
                #expect(FrameFolder.naturallyPrecedes(a, b) != FrameFolder.naturallyPrecedes(b, a), "\(a) vs \(b)")
            }
        }
    }

    @Test("a folder of mixed files gives its images, by content, in natural order, with the count on stderr")
    func mixedFolder() throws {
        let dir = try CLIHarness.temporaryFolder()
        let frames = try CLIHarness.makeBurst(in: dir + "/src", frames: 5, width: 96, height: 64)
        let burst = dir + "/burst"
        try FileManager.default.createDirectory(atPath: burst, withIntermediateDirectories: true)
        // Numeric names out of byte order, an image without an extension,
        // text named like an image, a hidden image and a plain text file.
        for (name, source) in [("f10.jpg", 3), ("f2.jpg", 1), ("f1.jpg", 0), ("f9.jpg", 2), ("noext", 4), (".hidden.jpg", 0)] {
            try FileManager.default.copyItem(atPath: frames[source], toPath: burst + "/" + name)
        }
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: burst + "/fake.jpg"))
        try Data("notes".utf8).write(to: URL(fileURLWithPath: burst + "/notes.txt"))
        let run = try CLIHarness.run(["--report", dir + "/r.json", "-o", dir + "/out.jpg", burst])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("\(burst): 5 image files"), "\(run.stderr)")
        let expected = ["f1.jpg", "f2.jpg", "f9.jpg", "f10.jpg", "noext"].map { burst + "/" + $0 }
        #expect(try Self.reportedPaths(dir + "/r.json") == expected)
    }

    @Test("subfolders count only with --recursive; a folder of one frame is refused with a message that says so")
    func recursiveAndTooFew() throws {
        let dir = try CLIHarness.temporaryFolder()
        let frames = try CLIHarness.makeBurst(in: dir + "/src", frames: 3, width: 96, height: 64)
        let top = dir + "/night"
        try FileManager.default.createDirectory(atPath: top + "/sub", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: frames[0], toPath: top + "/a1.jpg")
        try FileManager.default.copyItem(atPath: frames[1], toPath: top + "/sub/b1.jpg")
        try FileManager.default.copyItem(atPath: frames[2], toPath: top + "/sub/b2.jpg")

        let flat = try CLIHarness.run(["-o", dir + "/flat.jpg", top])
        #expect(flat.status == 1)
        #expect(flat.stderr.contains("\(top): the folder holds 1 frame; stacking needs at least two"), "\(flat.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/flat.jpg"))

        let deep = try CLIHarness.run(["--recursive", "--report", dir + "/r.json", "-o", dir + "/deep.jpg", top])
        #expect(deep.status == 0, "\(deep.stderr)")
        #expect(try Self.reportedPaths(dir + "/r.json") == [top + "/a1.jpg", top + "/sub/b1.jpg", top + "/sub/b2.jpg"])

        try FileManager.default.createDirectory(atPath: dir + "/empty", withIntermediateDirectories: true)
        let empty = try CLIHarness.run([dir + "/empty", frames[0]])
        #expect(empty.status == 1)
        #expect(empty.stderr.contains("\(dir)/empty: the folder holds no image file"), "\(empty.stderr)")
    }
    @Test("a generated scene's folder gives the frames its truth.json names, not its truth and mask")
    func sceneFolder() throws {
        let dir = try CLIHarness.temporaryFolder()
        let frames = try CLIHarness.makeBurst(in: dir + "/src", frames: 3, width: 96, height: 64)
        let scene = dir + "/scene"
        try FileManager.default.createDirectory(atPath: scene, withIntermediateDirectories: true)
        for (i, frame) in frames.enumerated() { try FileManager.default.copyItem(atPath: frame, toPath: scene + "/frame_00\(i).jpg") }
        try FileManager.default.copyItem(atPath: frames[0], toPath: scene + "/truth.jpg")
        let mask = Plane(width: 96, height: 64, pixels: [Float](repeating: 0, count: 96 * 64))
        try ImageFile.write(Image(width: 96, height: 64, planes: [mask]), to: scene + "/mask.png")
        func manifest(_ names: [String]) throws {
            let entries = names.map { "{\"path\": \"\($0)\", \"dx\": 0, \"dy\": 0}" }.joined(separator: ", ")
            try Data("{\"version\": 1, \"truth\": \"truth.jpg\", \"frames\": [\(entries)]}\n".utf8)
                .write(to: URL(fileURLWithPath: scene + "/truth.json"))
        }
        // The manifest's order, not the names' order.
        try manifest(["frame_002.jpg", "frame_000.jpg", "frame_001.jpg"])
        let run = try CLIHarness.run(["--report", dir + "/r.json", "-o", dir + "/out.jpg", scene])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("\(scene): 3 image files named by its truth.json"), "\(run.stderr)")
        #expect(try Self.reportedPaths(dir + "/r.json") == ["frame_002.jpg", "frame_000.jpg", "frame_001.jpg"].map { scene + "/" + $0 })
        // A manifest naming a path outside the folder, or a file that is
        // not there, is no manifest: the folder is listed as any other,
        // and the one-channel mask is refused among colour frames.
        for names in [["frame_000.jpg", "../src/x.jpg"], ["frame_000.jpg", "missing.jpg"]] {
            try manifest(names)
            let listed = try CLIHarness.run(["-o", dir + "/listed.jpg", scene])
            #expect(listed.status == 1, "\(names)")
            #expect(listed.stderr.contains("\(scene): 5 image files\n"), "\(listed.stderr)")
            #expect(listed.stderr.contains("mask.png"), "\(listed.stderr)")
        }
    }
}
