/// Settings of `TileAligner`.
public struct TileAlignmentOptions: Sendable, Equatable {
    /// Side of a tile in pixels of every pyramid level (16…32 as in HDR+);
    /// tiles overlap by half, so centres are `tileSize / 2` apart.
    public var tileSize: Int = 16
    /// Integer offsets searched around the coarser level's estimate, per
    /// axis, on the coarsest level (a displacement up to about
    /// `searchRadius · 2^(levels − 1)` full-resolution pixels is found).
    public var searchRadius: Int = 4
    /// Integer offsets searched on the finer levels, per axis.
    public var refineRadius: Int = 1
    /// Pyramid levels (each half the size of the one below); fewer when the
    /// image is too small to hold two tiles a side on a level.
    public var levels: Int = 4
    /// Gauss–Newton (Lucas–Kanade) steps per tile at full resolution for the
    /// subpixel part.
    public var subpixelIterations: Int = 3
    /// A tile whose reference standard deviation is below this (sample
    /// units: 0…1 for normalised luma) has nothing to align on and falls
    /// back to the global transform.
    public var minimumContrast: Double = 0.004
    /// A tile keeps the global transform (displacement 0) unless its best
    /// match lowers the global transform's cost by at least this fraction:
    /// a tile whose content differs whatever the offset (a passer-by in
    /// one of the two frames) must not drag the frame around it.
    public var minimumImprovement: Double = 0.3
    /// At full resolution a tile whose best cost is above this multiple of
    /// the median tile's still matches nothing (something moved there) and
    /// falls back.
    public var maximumCostRatio: Double = 3

    /// The defaults above.
    public init() {}
}
