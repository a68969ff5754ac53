import Stacker

/// Folders given as frames (`stack burst/`): each stands for the image
/// files it holds (`FrameFolder.frames`), and the count is said on stderr.
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
            let found = try FrameFolder.frames(in: input, recursive: recursive)
            guard !found.isEmpty else {
                let scope = recursive ? "" : " (--recursive also searches its subfolders)"
                throw StackerError.invalidInput(path: input.description, reason: "the folder holds no image file; stacking needs at least two frames\(scope)")
            }
            folders.append(input)
            files += found
            if !quiet { terminal.line("stack: \(input): \(found.count) image file\(found.count == 1 ? "" : "s")") }
        }
        return (files, folders)
    }

    /// Throws when folders were given and all the inputs together hold
    /// fewer than two frames, naming the (first) folder.
    static func requireTwoFrames(_ frameCount: Int, folders: [FilePath]) throws {
        guard frameCount < 2, let folder = folders.first else { return }
        throw StackerError.invalidInput(path: folder.description,
                                        reason: "the folder holds \(frameCount) frame; stacking needs at least two")
    }
}
