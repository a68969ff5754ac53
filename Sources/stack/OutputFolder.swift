#if canImport(Glibc)
import Glibc
#endif
import Stacker

/// `-o DIR/` or `-o existing_folder`: the stack goes into that folder as
/// `stacked.<ext>` (`OutputPath.implicit`'s name and never-replace rule).
enum OutputFolder {
    /// True when `--output` names a folder: it ends in `/`, or a folder exists there.
    static func isFolder(_ output: FilePath) -> Bool {
        output.bytes.last == UInt8(ascii: "/") || FrameFolder.isFolder(output)
    }

    /// The extension `--format` stands for (`jpg`, `png`, `tif`, `fits`,
    /// `heic`; `jpeg`, `tiff`, `fit`, `heif` accepted as the same), or nil.
    static func formatExtension(_ name: String) -> String? {
        ["jpg": "jpg", "jpeg": "jpg", "png": "png", "tif": "tif", "tiff": "tif",
         "fits": "fits", "fit": "fits", "heic": "heic", "heif": "heic"][name.lowercased()]
    }

    /// The output file in `folder` (which may not exist yet: `make` it
    /// once the run's checks have passed).
    static func output(in folder: FilePath, firstInput: FilePath, format: String?) -> FilePath {
        OutputPath.implicit(firstInput: firstInput, directory: folder, format: format)
    }

    /// Makes `folder` (one level, like `mkdir`) when it is missing.
    /// - Throws: `StackerError.invalidInput` when it cannot be made or
    ///   names something that is not a folder.
    static func make(_ folder: FilePath) throws {
        guard !FrameFolder.isFolder(folder) else { return }
        guard folder.withCString({ mkdir($0, 0o777) }) == 0 else {
            let reason = errno == EEXIST ? "exists and is not a folder" : "cannot make the output folder: \(String(cString: strerror(errno)))"
            throw StackerError.invalidInput(path: folder.description, reason: reason)
        }
    }

    /// The absolute, link-free spelling of `folder`, which may not exist
    /// yet: its nearest existing ancestor resolved, the rest appended.
    static func resolved(_ folder: FilePath) -> FilePath {
        if FrameFolder.isFolder(folder) { return folder.canonical }
        let parent = folder.folder
        guard parent != folder else { return folder }
        return resolved(parent).appending(folder.lastComponent)
    }
}
