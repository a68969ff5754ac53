import Registration

/// `--align local`: the homography (`HomographyRegistrar`), then the
/// residual displacements of tiles (`TileAligner`) measured on the frame's
/// luma warped by it. The frame is later warped through both
/// (`RowWarper(…, field:)`). A frame whose homography fell back to the
/// translation is aligned locally after that translation all the same.
struct LocalRegistration: RegistrationModel {
    private let homography: HomographyRegistrar
    private let tiles: TileAligner

    /// Prepares both stages against `reference` (normalised luma).
    init(reference: Plane, homography options: HomographyOptions,
         tiles tileOptions: TileAlignmentOptions = .init()) throws {
        homography = try HomographyRegistrar(reference: reference, options: options)
        tiles = try TileAligner(reference: reference, options: tileOptions)
    }

    var lumaSearchFactor: Int? { nil }
    var referenceStarSummary: StarSummary? { nil }

    func estimate(_ luma: DecodedFrame.Luma, downsampled: Plane?) throws -> RegistrationEstimate {
        var estimate = try homography.estimate(luma, downsampled: downsampled)
        guard estimate.rejection == nil, estimate.isAccepted != false else { return estimate }
        // Bilinear is enough to measure on (the frame itself is warped with
        // the run's kernel later); a JPEG's Y is read as its bytes, and a
        // near-identity homography resampled in two 1-D passes.
        let rows: RowWarper?
        switch luma {
        case .bytes(let plane):
            rows = RowWarper([plane], by: estimate.transform, width: tiles.width, height: tiles.height,
                             interpolation: .bilinear)
        case .floats(let plane):
            rows = RowWarper([plane], by: estimate.transform, width: tiles.width, height: tiles.height,
                             interpolation: .bilinear)
        }
        guard let rows else { return estimate }
        let global = Warper.warp(rows.resamplingInTwoPasses())
        estimate.field = try tiles.align(global.planes[0], coverage: global.coverage)
        return estimate
    }
}
