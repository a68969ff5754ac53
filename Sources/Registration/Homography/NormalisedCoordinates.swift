/// The conditioning coordinate system the homography is estimated in:
/// `xn = (X − cX) / S`, `yn = (Y − cY) / S` with `(cX, cY)` the centre of the
/// full-resolution image and `S` half its longest side, so the image spans
/// about [−1, 1] on its long axis. Being defined on the full-resolution
/// grid, one matrix in these coordinates describes the motion on every
/// pyramid level.
struct NormalisedCoordinates: Sendable {
    /// Full-resolution centre, in pixels.
    let centreX: Double, centreY: Double
    /// Full-resolution pixels per normalised unit.
    let scale: Double

    /// The system of a `width` × `height` full-resolution image.
    init(width: Int, height: Int) {
        centreX = Double(width - 1) / 2
        centreY = Double(height - 1) / 2
        scale = max(1, Double(max(width, height)) / 2)
    }

    /// Normalised coordinates → pixel coordinates of the pyramid level
    /// box-downsampled by `factor` (its pixel `x` covers full-resolution
    /// `factor·x + (factor − 1) / 2`, see `Plane.downsampled(by:)`).
    func levelMatrix(factor: Int) -> Transform {
        let f = Double(factor), half = (f - 1) / 2
        return Transform(matrix: [scale / f, 0, (centreX - half) / f,
                                  0, scale / f, (centreY - half) / f,
                                  0, 0, 1])
    }

    /// Full-resolution pixel → normalised coordinates.
    var fromPixels: Transform {
        Transform(matrix: [1 / scale, 0, -centreX / scale, 0, 1 / scale, -centreY / scale, 0, 0, 1])
    }

    /// Normalised → full-resolution pixel coordinates.
    var toPixels: Transform { levelMatrix(factor: 1) }

    /// A pixel-coordinate transform expressed in normalised coordinates.
    func normalised(_ t: Transform) -> Transform {
        fromPixels.concatenating(t).concatenating(toPixels)
    }

    /// A normalised-coordinate transform expressed in full-resolution pixels.
    func pixels(_ t: Transform) -> Transform {
        toPixels.concatenating(t).concatenating(fromPixels)
    }
}
