import Foundation

/// Where tests put and find files: fresh temporary folders, and the
/// package's own fixtures.
public enum TestFiles {
    /// The package root (the folder holding Package.swift), from this
    /// file's place in `Tests/TestSupport`.
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// `Tests/Fixtures/real`: files from other projects (see its README).
    public static let realFixtures = packageRoot + "/Tests/Fixtures/real"

    /// A new, empty folder under the system temporary directory, named
    /// `stack-<label>-<8 random hex digits>` (of `label` only ASCII letters,
    /// digits and hyphens), so tests running at the same time never share
    /// one. The caller removes it (`remove`).
    public static func temporaryFolder(_ label: String = #function) throws -> String {
        let clean = label.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        let path = NSTemporaryDirectory() + "stack-\(clean)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Removes `path` and everything in it; no error when it is gone already.
    public static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes `bytes` to `folder/name` and returns that path.
    public static func write(_ bytes: [UInt8], _ name: String, in folder: String) throws -> String {
        let path = folder + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The names in `folder`, sorted; empty when it cannot be read.
    public static func listing(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }
}
