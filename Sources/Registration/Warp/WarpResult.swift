/// Planes resampled onto the reference grid, with where they have data.
public struct WarpResult: Sendable, Equatable {
    /// One plane per input plane, reference size; 0 where `coverage` is 0.
    public var planes: [Plane]
    /// Per reference pixel: 1 where the sample point falls inside the
    /// frame's pixel-centre extent `[0, w−1] × [0, h−1]`, else 0.
    public var coverage: Plane

    /// Creates a result.
    public init(planes: [Plane], coverage: Plane) {
        self.planes = planes
        self.coverage = coverage
    }
}
