/// Where one frame of a run comes from: a file, or an image already in
/// memory (a test scene's frame, a frame a client decoded itself).
public enum FrameSource: Sendable {
    /// An image file (JPEG, PNG, TIFF, FITS, or a HEIF file's primary image),
    /// read when the run needs it.
    case file(FilePath)
    /// Frame `index` (from 0) of a file that holds several: a burst in one
    /// file, a cube, a video. Named `path#index` in messages and reports.
    case frameInFile(FilePath, index: Int)
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
        case .frameInFile(let path, let frame): return "\(path)#\(frame)"
        case .image(_, let name): return name ?? "image \(index)"
        }
    }

    /// The frame as an upright float image, decoded as `ImageFile` decodes it.
    /// - Throws: `StackerError.unreadable` naming the file.
    public func image(maxPixels: Int = ImageFile.defaultMaxPixels) throws -> Image {
        switch self {
        case .file(let path): return try ImageFile.read(path, maxPixels: maxPixels).image
        case .frameInFile(let path, let index): return try ImageFile.readFrame(index, of: path, maxPixels: maxPixels).image
        case .image(let image, _): return image
        }
    }

    /// One source per frame of each file: a file that holds several frames
    /// (`ImageFile.frameCount`) becomes one `frameInFile` per frame, any
    /// other file (including one that cannot be read: the run reports it)
    /// stays a `file`.
    public static func frames(in paths: [some FilePathConvertible]) -> [FrameSource] {
        paths.flatMap { given -> [FrameSource] in
            let path = given.filePath
            let count = (try? ImageFile.frameCount(path)) ?? 1
            return count > 1 ? (0..<count).map { .frameInFile(path, index: $0) } : [.file(path)]
        }
    }
}
