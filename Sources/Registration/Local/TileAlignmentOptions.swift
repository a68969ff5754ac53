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
    /// At full resolution a tile's displacement `d` is kept only when
    /// `dᵀ H d / σₑ²` (`H` the tile's Tukey-weighted gradient matrix, `σₑ²`
    /// its weighted mean squared residual) reaches this; otherwise it is 0,
    /// the global transform's. For a true displacement of 0 and independent
    /// noise that statistic would follow χ² with 2 degrees of freedom (13.8
    /// lets one tile in a thousand through), but a photo's noise is
    /// correlated between neighbours (demosaicing, JPEG blocks, the bilinear
    /// pre-warp), which inflates it: on `Samples/street` (no parallax) 13.8
    /// kept 0.4 px displacements in a fifth of the tiles and lost 0.33 dB,
    /// 100 keeps under 1 % of them (−0.08 dB). A parallax of 1 px on a
    /// textured tile scores in the thousands.
    public var minimumSignificance: Double = 100

    /// The defaults above.
    public init() {}
}
