import Stacker

/// Folders given as frames (`stack burst/`): each stands for the image
/// files it holds (`FrameFolder.listing`), and the count is said on stderr.
enum FolderExpansion {
    /// `inputs` with every folder replaced by its frame files, in natural
    /// order; files are kept as given. Unless `quiet`, one line per folder
    /// on `terminal` says how many files it gave.
    /// - Throws: `StackerError.invalidInput` naming a folder that holds no
    ///   image file; `StackerError.unreadable` for one that cannot be listed.
    static func expand(_ inputs: [FilePath], recursive: Bool, terminal: Terminal, quiet: Bool) throws -> (files: [FilePath], folders: [FilePath]) {
        var files: [FilePath] = []
        var folders: [FilePath] = []
        for input in inputs {
            guard FrameFolder.isFolder(input) else {
                files.append(input)
                continue
            }
            let (found, fromManifest) = try FrameFolder.listing(input, recursive: recursive)
            guard !found.isEmpty else {
                let scope = recursive ? "" : " (--recursive also searches its subfolders)"
                throw StackerError.invalidInput(path: input.description, reason: "the folder holds no image file; stacking needs at least two frames\(scope)")
            }
            folders.append(input)
            files += found
            if !quiet {
                let source = fromManifest ? " named by its \(FrameFolder.sceneManifestName)" : ""
                terminal.line("stack: \(input): \(found.count) image file\(found.count == 1 ? "" : "s")\(source)")
            }
        }
        return (files, folders)
    }

    /// Throws when `output` would land among the frames of one of
    /// `folders` (in it, or below it with `recursive`): the next run over
    /// that folder would stack the output as a frame.
    static func refuseOutputAmongFrames(_ output: FilePath, folders: [FilePath], recursive: Bool) throws {
        let home = OutputFolder.resolved(output.folder)
        for folder in folders {
            let inside = folder.canonical
            let below = recursive && home.bytes.starts(with: inside.appending("").bytes)
            guard home == inside || below else { continue }
            throw StackerError.invalidInput(path: output.description,
                                            reason: "the output would land among the frames of \(folder), and the next run over it would stack it; write it elsewhere (--output)")
        }
    }

    /// Throws when folders were given and all the inputs together hold
    /// fewer than two frames, naming the (first) folder.
    static func requireTwoFrames(_ frameCount: Int, folders: [FilePath]) throws {
        guard frameCount < 2, let folder = folders.first else { return }
        throw StackerError.invalidInput(path: folder.description,
                                        reason: "the folder holds \(frameCount) frame; stacking needs at least two")
    }
}
