import Registration

/// Builds a master calibration frame from one or more files.
public enum MasterFrame {
    /// The master of `paths` (a folder stands for the image files in it, a
    /// FITS cube or SER video for its frames): the single frame itself, or the per-pixel
    /// `kernel` combination of all of them (median, sigma-clip, …), with
    /// no registration (calibration frames are taken on a fixed sensor).
    ///
    /// - Parameters:
    ///   - role: what the frames are ("bias", "dark", "flat"), for errors.
    ///   - width, height, channels: the lights' size, which every frame must have.
    ///   - memoryLimit, temporaryDirectory: for the frame store used to combine.
    /// - Throws: `StackerError` naming the file that cannot be read or has the wrong size.
    public static func build(paths: [some FilePathConvertible], role: String, kernel: RobustKernel,
                             width: Int, height: Int, channels: Int, maxPixels: Int,
                             memoryLimit: Int, temporaryDirectory: some FilePathConvertible,
                             threads: Int) throws -> Image {
        // A file of several frames (a FITS cube, a SER video of darks) gives
        // all of them, as FrameSource.frames(in:) does for lights; a file
        // whose frames cannot be counted stays one frame, whose read names
        // the fault.
        let paths = try CalibrationFiles.expand(paths.map(\.filePath), role: role).flatMap { path -> [(FilePath, Int?)] in
            let count = (try? ImageFile.frameCount(path)) ?? 1
            return count > 1 ? (0..<count).map { (path, $0) } : [(path, nil)]
        }
        guard !paths.isEmpty else {
            throw StackerError.invalidInput(path: "", reason: "no \(role) frames given")
        }
        let read: @Sendable ((FilePath, Int?)) throws -> Image = { frame in
            let (path, index) = frame
            let name = index.map { "\(path)#\($0)" } ?? path.description
            let image = try index.map { try ImageFile.readFrame($0, of: path, maxPixels: maxPixels).image }
                ?? ImageFile.read(path, maxPixels: maxPixels).image
            guard image.width == width, image.height == height else {
                throw StackerError.invalidInput(
                    path: name, reason: "\(role) frame is \(image.width)×\(image.height), the lights are \(width)×\(height)")
            }
            guard image.channels == channels else {
                throw StackerError.invalidInput(
                    path: name, reason: "\(role) frame has \(image.channels) channel(s), the lights have \(channels)")
            }
            return image
        }
        if paths.count == 1 { return try read(paths[0]) }
        let store = try FrameStore(width: width, height: height, channels: channels, frameCount: paths.count,
                                   memoryLimit: memoryLimit, temporaryDirectory: temporaryDirectory)
        let full = Plane(width: width, height: height, repeating: 1)
        let failures = parallelMap(paths.count, threads: threads) { i -> StackerError? in
            do {
                try store.store(frame: i, planes: try read(paths[i]).planes, coverage: full)
                return nil
            } catch {
                return (error as? StackerError) ?? .unreadable(path: paths[i].0.description, reason: "\(error)")
            }
        }
        if let first = failures.compactMap({ $0 }).first { throw first }
        return try store.reduce(kernel, weights: [Float](repeating: 1, count: paths.count), threads: threads).image
    }
}
