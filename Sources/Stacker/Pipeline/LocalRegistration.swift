import Registration

/// `--align local`: the homography (`HomographyRegistrar`), then the
/// residual displacements of tiles (`TileAligner`) measured on the frame's
/// luma warped by it. The frame is later warped through both
/// (`RowWarper(…, field:)`). A frame whose homography fell back to the
/// translation is aligned locally after that translation all the same.
/// A reference too small for two tiles a side keeps the homography alone,
/// and each frame's report says so (`note`).
struct LocalRegistration: RegistrationModel {
    private let homography: HomographyRegistrar
    /// Nil when the reference is too small to hold two tiles a side.
    private let tiles: TileAligner?
    /// Why `tiles` is nil, for each frame's report.
    private let skipped: String?

    /// Prepares both stages against `reference` (normalised luma).
    /// - Throws: what `HomographyRegistrar.init` throws.
    init(reference: Plane, homography options: HomographyOptions,
         tiles tileOptions: TileAlignmentOptions = .init()) throws {
        homography = try HomographyRegistrar(reference: reference, options: options)
        do {
            tiles = try TileAligner(reference: reference, options: tileOptions)
            skipped = nil
        } catch RegistrationError.tooSmall {
            tiles = nil
            let side = 2 * tileOptions.tileSize
            skipped = "no local alignment: the frame is \(reference.width)×\(reference.height), under the \(side)×\(side) px that two tiles a side need; the homography alone"
        }
    }

    var lumaSearchFactor: Int? { nil }
    var referenceStarSummary: StarSummary? { nil }

    func estimate(_ luma: DecodedFrame.Luma, downsampled: Plane?) throws -> RegistrationEstimate {
        var estimate = try homography.estimate(luma, downsampled: downsampled)
        guard estimate.rejection == nil, estimate.isAccepted != false else { return estimate }
        guard let tiles else {
            estimate.note = [estimate.note, skipped].compactMap { $0 }.joined(separator: "; ")
            return estimate
        }
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
