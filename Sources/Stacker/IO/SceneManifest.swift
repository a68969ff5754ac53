/// The frame list of a generated scene's folder: `make-scene` (and
/// SceneGen's `Scene.write`) put the frames beside their ground truth
/// (`truth.png`, `mask.png`) and name the frames, in order, in
/// `truth.json`'s `"frames": [{"path": …}, …]`. A folder given as frames
/// takes exactly those, so the truth and the mask are not stacked with them.
enum SceneManifest {
    /// The manifest's file name.
    static let fileName = "truth.json"
    /// Larger files are not read as a manifest (a 10,000-frame scene's is
    /// under 1 MB).
    static let byteLimit = 16 << 20

    /// The frames `folder/truth.json` names, in its order, or nil when there
    /// is no such file or it is not a scene manifest: not JSON, no
    /// `"frames"` array, an entry without a `"path"` string, a path that is
    /// not a plain file name (empty, hidden, or holding `/`), or one that
    /// is not a frame file in `folder` (`FrameFolder.holdsFrames`). Nil
    /// then means the folder is listed as any other.
    static func frames(in folder: FilePath) -> [FilePath]? {
        let manifest = folder.appending(FilePath(fileName))
        guard let bytes = try? FileBytes.read(manifest, limit: byteLimit + 1), bytes.count <= byteLimit,
              let text = String(validating: bytes, as: UTF8.self),
              let entries = (try? JSONValue.parse(text))?["frames"]?.array, !entries.isEmpty else { return nil }
        var frames: [FilePath] = []
        for entry in entries {
            guard let name = entry["path"]?.string, let first = name.utf8.first, first != UInt8(ascii: "."),
                  !name.utf8.contains(UInt8(ascii: "/")) else { return nil }
            let path = folder.appending(FilePath(name))
            guard FrameFolder.holdsFrames(path) else { return nil }
            frames.append(path)
        }
        return frames
    }
}
