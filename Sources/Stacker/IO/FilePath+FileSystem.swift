#if canImport(Glibc)
import Glibc
#endif

extension FilePath {
    /// True when something exists at this path (a dangling symlink counts).
    package var exists: Bool {
        var st = stat()
        return withCString { lstat($0, &st) } == 0
    }

    /// Device and inode of the file at this path, following links; nil when
    /// there is none.
    package var fileID: [UInt64]? {
        var st = stat()
        guard withCString({ stat($0, &st) }) == 0 else { return nil }
        return [UInt64(st.st_dev), UInt64(st.st_ino)]
    }

    /// The absolute, link-free spelling of this path; for a file that does
    /// not exist yet, its folder is resolved and the name appended.
    package var canonical: FilePath {
        if let r = resolved { return r }
        let folder = self.folder
        return (folder.resolved ?? folder).appending(lastComponent)
    }

    /// `realpath(3)` of this path, nil when it cannot be resolved.
    private var resolved: FilePath? {
        guard let p = withCString({ realpath($0, nil) }) else { return nil }
        defer { free(p) }
        return FilePath(cString: p)
    }
}
