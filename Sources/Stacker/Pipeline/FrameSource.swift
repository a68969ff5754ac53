/// Where one frame of a run comes from: a file, or an image already in
/// memory (a test scene's frame, a frame a client decoded itself).
public enum FrameSource: Sendable {
    /// An image file (JPEG, PNG, TIFF or FITS), read when the run needs it.
    case file(FilePath)
    /// An image in memory, on the 0…1 scale, 1 or 3 channels. It counts as a
    /// 32-bit float frame: no EXIF, no FITS keywords. `name` stands for it in
    /// reports, warnings and errors (default `image N`, N from 0).
    case image(Image, name: String? = nil)

    /// A file source from a path given as a `String` or `FilePath`.
    public static func path(_ path: some FilePathConvertible) -> FrameSource { .file(path.filePath) }

    /// How reports and messages name this source when it is frame `index`.
    func name(at index: Int) -> String {
        switch self {
        case .file(let path): return path.description
        case .image(_, let name): return name ?? "image \(index)"
        }
    }

    /// The file, for a file source.
    var filePath: FilePath? {
        if case .file(let path) = self { return path }
        return nil
    }
}
