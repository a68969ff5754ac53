import Foundation
import SceneGen
import Stacker

/// A SceneGen scene rendered and written as one file per frame
/// (`frame_000.jpg` …), with its ground truth at hand.
public struct SceneBurst {
    /// The rendered scene: frames, ground truth, true shifts, object masks.
    public let scene: Scene
    /// The frame files, in frame order.
    public let paths: [String]
    /// The folder holding them.
    public let folder: String

    /// Renders `config` and writes its frames as `format` (8-bit; JPEG at
    /// `quality`) into `folder`, or into a new temporary folder named after
    /// `label` when `folder` is nil.
    public init(_ config: SceneConfig, format: ImageFormat = .jpeg, quality: Int = 95,
                in folder: String? = nil, label: String = "burst") throws {
        scene = SceneGenerator.render(config)
        self.folder = try folder ?? TestFiles.temporaryFolder(label)
        try scene.write(to: self.folder, format: format, quality: quality)
        paths = (0..<config.frameCount).map { [f = self.folder] in f + "/" + Scene.frameFileName($0, format: format) }
    }

    /// The street preset at `width` × `height` with `frames` frames from `seed`.
    public static func street(width: Int, height: Int, frames: Int, seed: UInt64) -> SceneConfig {
        var config = SceneConfig.street
        config.width = width
        config.height = height
        config.frameCount = frames
        config.seed = seed
        return config
    }

    /// Removes the folder and everything in it.
    public func remove() { TestFiles.remove(folder) }
}
