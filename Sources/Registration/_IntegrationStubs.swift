// TEMPORARY: stand-ins for the Registration API being written in parallel.
public struct TranslationEstimate: Sendable { public var dx: Double; public var dy: Double; public var score: Double }
public struct TranslationOptions: Sendable {
    public static let defaultMinimumScore = 0.1
    public var minimumScore = TranslationOptions.defaultMinimumScore
    public init() {}
}
public final class TranslationRegistrar: Sendable {
    public init(reference: Plane, options: TranslationOptions = .init()) throws {}
    public func estimate(_ frame: Plane) throws -> TranslationEstimate { .init(dx: 0, dy: 0, score: 1) }
}
public enum Interpolation: Sendable { case bicubic, lanczos3 }
public struct WarpResult: Sendable { public var planes: [Plane]; public var coverage: Plane }
public enum Warper {
    public static func warp(_ planes: [Plane], by transform: Transform, width: Int, height: Int,
                            interpolation: Interpolation = .bicubic) -> WarpResult {
        WarpResult(planes: planes, coverage: Plane(width: width, height: height, repeating: 1))
    }
}
