import Foundation
import Stacker
import Testing

/// `-o DIR/` or `-o existing_folder`: the stack goes in as `stacked.<ext>`,
/// never replacing a file; `--format` picks the type.
@Suite("stack: output into a folder")
struct OutputFolderCLITests {
    @Test("-o DIR/ twice writes stacked.jpg then stacked-2.jpg and leaves the first untouched")
    func twiceNoClobber() throws {
        let dir = try CLIHarness.temporaryFolder()
        let frames = try CLIHarness.makeBurst(in: dir + "/in", frames: 3, width: 96, height: 64)
        let first = try CLIHarness.run(["-o", dir + "/out/"] + frames)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("wrote \(dir)/out/stacked.jpg:"), "\(first.stderr)")
        let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/out/stacked.jpg"))
        // The folder exists now: named without the slash, it is still a folder.
        let second = try CLIHarness.run(["--mode", "median", "-o", dir + "/out"] + frames)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(CLIHarness.listing(dir + "/out") == ["stacked-2.jpg", "stacked.jpg"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/out/stacked.jpg")) == before)
    }

    @Test("--format png into a folder writes a PNG; a --format that disagrees with -o FILE is a usage error")
    func format() throws {
        let dir = try CLIHarness.temporaryFolder()
        let frames = try CLIHarness.makeBurst(in: dir + "/in", frames: 3, width: 96, height: 64)
        let run = try CLIHarness.run(["--format", "png", "-o", dir + "/png/"] + frames)
        #expect(run.status == 0, "\(run.stderr)")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/png/stacked.png")))
        #expect(ImageFormat.fromMagic(bytes) == .png)
        #expect(try ImageFile.read(dir + "/png/stacked.png").bitDepth == 16)

        let clash = try CLIHarness.run(["--format", "tif", "-o", dir + "/x.png"] + frames)
        #expect(clash.status == 2)
        #expect(clash.stderr.contains("--format tif disagrees with --output"), "\(clash.stderr)")
        let unknown = try CLIHarness.run(["--format", "gif"] + frames)
        #expect(unknown.status == 2)

        try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/file"))
        let notFolder = try CLIHarness.run(["-o", dir + "/file/"] + frames)
        #expect(notFolder.status == 1)
        #expect(notFolder.stderr.contains("\(dir)/file/: exists and is not a folder"), "\(notFolder.stderr)")
    }

    @Test("an output that would land among a frame folder's files is refused, so the next run cannot stack it; nothing is made")
    func outputAmongFrames() throws {
        let dir = try CLIHarness.temporaryFolder()
        // Only the frames: a scene folder also holds its truth and mask.
        let frames = try CLIHarness.makeBurst(in: dir + "/scene", frames: 3, width: 96, height: 64)
        try FileManager.default.createDirectory(atPath: dir + "/burst", withIntermediateDirectories: false)
        for frame in frames { try FileManager.default.copyItem(atPath: frame, toPath: dir + "/burst/" + (frame as NSString).lastPathComponent) }
        let before = CLIHarness.listing(dir + "/burst")
        let inside = try CLIHarness.run(["-o", dir + "/burst/"] + [dir + "/burst"])
        #expect(inside.status == 1)
        #expect(inside.stderr.contains("\(dir)/burst/stacked.jpg: the output would land among the frames of \(dir)/burst"), "\(inside.stderr)")
        // With --recursive a new folder below counts too, and is not made.
        let below = try CLIHarness.run(["--recursive", "-o", dir + "/burst/new/", dir + "/burst"])
        #expect(below.status == 1, "\(below.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/burst/new"))
        #expect(CLIHarness.listing(dir + "/burst") == before)
        let beside = try CLIHarness.run(["-o", dir + "/out/", dir + "/burst"])
        #expect(beside.status == 0, "\(beside.stderr)")
    }
}
