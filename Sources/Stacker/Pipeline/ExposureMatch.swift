import Registration

/// `--match-exposure`: each frame's exposure gain and offset against the
/// reference (`ExposureFit`), measured on the luma at the scene points the
/// alignment pairs, and the per-channel corrections the kernel applies to
/// the frame's warped samples before the merge.
///
/// The pairs are means over `blockSize` × `blockSize` blocks of reference
/// pixels, on a grid of about 4 096 blocks or more, every
/// `blockSize`…`maximumStep` pixels (4 100 blocks at 12 MP: two
/// parameters need no more, and each frame's cost stays a few
/// milliseconds). A frame's
/// block mean is that of its luma sampled bilinearly where its transform
/// (and displacement field) maps each of the block's pixels, so both show
/// the same scene. Means, not single samples: bilinear interpolation at a
/// fractional position lowers the contrast of fine texture, which would
/// bias the gain low (by 2–3 % on a textured 192 × 160 burst); a block's
/// mean keeps little of that texture. Blocks the frame does not wholly
/// cover, or where either luma comes within `ExposureFit.clipMargin` of 0
/// or 1, are left out.
struct ExposureMatch: Sendable {
    /// Side of a block, in pixels.
    static let blockSize = 8
    /// Largest spacing of the blocks' corners, in pixels: past about 16 MP
    /// the grid holds more than 4 096 blocks.
    static let maximumStep = 64
    /// Top-left corners of the blocks.
    private let corners: [(x: Int, y: Int)]
    /// The reference's mean luma per block (NaN where clipped).
    private let reference: [Float]

    /// Keeps the block means of `referenceLuma` (0…1 luma).
    init(referenceLuma: Plane) {
        let b = Self.blockSize
        let area = Double(referenceLuma.width * referenceLuma.height)
        let step = min(Self.maximumStep, max(b, Int((area / 4096).squareRoot())))
        var corners = [(x: Int, y: Int)](), means = [Float]()
        for y in stride(from: 0, through: referenceLuma.height - b, by: step) {
            for x in stride(from: 0, through: referenceLuma.width - b, by: step) {
                corners.append((x, y))
                means.append(Self.blockMean { i, j in referenceLuma[x + i, y + j] })
            }
        }
        self.corners = corners
        reference = means
    }

    /// `(gain, offset)` with `frame ≈ gain · reference + offset` for a frame
    /// whose luma is `luma`, mapped onto the reference by `transform` and
    /// `field`; nil when no line can be fitted (see `ExposureFit.line`). A
    /// JPEG's Y is read as its bytes: no float copy of the frame is made.
    func measure(luma: DecodedFrame.Luma, transform: Transform, field: DisplacementField?) -> (gain: Double, offset: Double)? {
        switch luma {
        case .floats(let plane): return measure(plane, transform: transform, field: field)
        case .bytes(let plane): return measure(plane, transform: transform, field: field)
        }
    }

    /// `measure(luma:transform:field:)` for either sample type.
    private func measure<S: PlaneSample>(_ luma: PixelPlane<S>, transform: Transform,
                                         field: DisplacementField?) -> (gain: Double, offset: Double)? {
        guard let inverse = transform.inverse else { return nil }
        let samples = corners.map { c -> Float in
            Self.blockMean { i, j in
                let x = Double(c.x + i), y = Double(c.y + j)
                let d = field?.displacement(x: x, y: y) ?? (dx: 0, dy: 0)
                let q = inverse.apply(x: x + d.dx, y: y + d.dy)
                return Self.bilinear(luma, x: q.x, y: q.y)
            }
        }
        return ExposureFit.line(reference: reference, frame: samples)
    }

    /// The mean of `value(i, j)` over a block; NaN when any value is NaN or
    /// within `ExposureFit.clipMargin` of 0 or 1.
    private static func blockMean(_ value: (Int, Int) -> Float) -> Float {
        let low = ExposureFit.clipMargin, high = 1 - ExposureFit.clipMargin
        var sum: Float = 0
        for j in 0..<blockSize {
            for i in 0..<blockSize {
                let v = value(i, j)
                guard v > low && v < high else { return .nan }
                sum += v
            }
        }
        return sum / Float(blockSize * blockSize)
    }

    /// The corrections of one frame for `channels` channels that scale
    /// alike (R, G, B or grey, or the Y of Y, Cb, Cr).
    static func corrections(gain: Double, offset: Double, channels: Int) -> [(gain: Float, offset: Float)] {
        Array(repeating: ExposureFit.correction(gain: gain, offset: offset), count: channels)
    }

    /// The Cb, Cr corrections of a frame stacked as Y, Cb, Cr.
    static func chromaCorrections(gain: Double) -> [(gain: Float, offset: Float)] {
        Array(repeating: ExposureFit.chromaCorrection(gain: gain, neutral: YCbCr.neutral), count: 2)
    }

    /// `plane` sampled bilinearly at `(x, y)`, as the values its samples
    /// stand for; NaN outside its pixel-centre extent.
    private static func bilinear<S: PlaneSample>(_ plane: PixelPlane<S>, x: Double, y: Double) -> Float {
        guard x >= 0, y >= 0, x <= Double(plane.width - 1), y <= Double(plane.height - 1),
              plane.width > 1, plane.height > 1 else { return .nan }
        let ix = min(Int(x), plane.width - 2), iy = min(Int(y), plane.height - 2)
        let tx = Float(x - Double(ix)), ty = Float(y - Double(iy))
        let a = plane[ix, iy].float, b = plane[ix + 1, iy].float
        let c = plane[ix, iy + 1].float, d = plane[ix + 1, iy + 1].float
        let top = a + tx * (b - a), bottom = c + tx * (d - c)
        return (top + ty * (bottom - top)) * S.unit
    }
}
