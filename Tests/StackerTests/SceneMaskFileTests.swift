import Foundation
import Registration
import SceneGen
import Stacker
import Testing
import TestSupport

/// `mask.png`, the transient mask `stack compare --mask` reads: the same
/// from the streamed writer as from a rendered scene, and where the objects went.
@Suite("SceneGen mask file")
struct SceneMaskFileTests {
    @Test("the streamed and the rendered writers write the same mask.png, equal to Scene.transientMask")
    func sameMask() throws {
        let folder = try TestFiles.temporaryFolder("scenegen-mask")
        defer { TestFiles.remove(folder) }
        let config = SceneGenFixture.config(.street, width: 96, height: 64, frames: 5)
        try SceneGenerator.write(config, to: folder + "/streamed")
        let scene = SceneGenerator.render(config)
        try scene.write(to: folder + "/rendered")
        let streamed = try Data(contentsOf: URL(fileURLWithPath: folder + "/streamed/mask.png"))
        let rendered = try Data(contentsOf: URL(fileURLWithPath: folder + "/rendered/mask.png"))
        #expect(streamed == rendered)
        let mask = try ImageFile.read(folder + "/streamed/mask.png").image
        #expect(mask.channels == 1 && mask.width == 96 && mask.height == 64)
        #expect(mask.planes[0].pixels == scene.transientMask.pixels)
        let covered = mask.planes[0].pixels.filter { $0 > 0.5 }.count
        #expect(covered > 0 && covered < mask.pixelCount, "\(covered) of \(mask.pixelCount) pixels marked")
    }
}
