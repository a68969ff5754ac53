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
    /// The largest displacement a tile may take, per axis, in
    /// full-resolution pixels: the parallax this corrects. No level searches
    /// offsets beyond it. Unbounded, the tiles of a reference's passer-by
    /// found in every other frame some dark structure to match, up to 34 px
    /// away (the foot of a door above the passer-by's head); each frame
    /// brought it there and the median kept it: with the floor below in
    /// place, 8.1 dB lost against the homography on a generated
    /// 1600 × 1200 street, 1.8 dB on a 3000 × 2000 one (0.04 and 0.003 dB
    /// with the bound).
    public var maximumDisplacement: Double = 16
    /// A refined displacement shorter than this (full-resolution pixels)
    /// is 0: the global transform's. On generated streets without parallax,
    /// where the homography is right to 0.02 px, 6–8 % of the tiles measured
    /// significant displacements of 0.1–0.3 px, most along straight edges:
    /// a tile's own estimate has a systematic error of that order (the
    /// interpolated frame, JPEG's blocks) that its noise statistic
    /// (`minimumSignificance`) does not see. Kept, they cost 0.75–0.93 dB.
    /// Parallax below this is left to the global transform.
    public var minimumDisplacement: Double = 0.5
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
    /// At full resolution a tile whose cost under the global transform is
    /// at most this multiple of the burst's noise floor keeps it without a
    /// search: what the global transform leaves there is within the noise.
    /// The floor is the median cost, after the search and the subpixel
    /// steps, of every fourth tile each way: what a tile costs once aligned,
    /// whichever plane the global transform fits. (The tiles' own costs
    /// under the global transform would put it at the misaligned plane's
    /// where the transform fits neither well, as on `ParallaxBurst`; integer
    /// offsets alone would put it above the noise by their half-pixel
    /// misalignments.) With 1.25, a 20 × 12 MP burst without parallax takes
    /// about half the CPU time and stacks to within 0.001 dB, and the
    /// parallax tests keep their figures; 1.5 cost the parallax burst's band
    /// 0.2 dB. 0 searches every tile.
    public var noiseFloorRatio: Double = 1.25
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
