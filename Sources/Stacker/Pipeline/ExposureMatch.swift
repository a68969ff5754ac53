import Registration

/// `--match-exposure`: each frame's exposure gain and offset against the
/// reference (`ExposureFit`), measured on the luma at the scene points the
/// alignment pairs, and the per-channel corrections the kernel applies to
/// the frame's warped samples before the merge.
///
/// The pairs are means over `blockSize` × `blockSize` blocks of reference
/// pixels, on a grid of about `targetBlocks` blocks or more, every
/// `blockSize`…`maximumStep` pixels (1 000 blocks at 12 MP: two
/// parameters need no more, and each frame's cost stays about a
/// millisecond; images under 64 K pixels keep every 8th pixel). A frame's
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
    /// The grid's spacing aims at this many blocks (`blockSize` apart at
    /// least). 1 024: at 12 MP the frame's block means took 2.8 ms with
    /// 4 096 blocks and the robust line's sorts 1.4 ms more
    /// (docs/performance.md, issue 26), for a line of two parameters.
    static let targetBlocks = 1024
    /// Largest spacing of the blocks' corners, in pixels: past about 16 MP
    /// the grid holds more than `targetBlocks` blocks.
    static let maximumStep = 128
    /// Top-left corners of the blocks.
    private let corners: [(x: Int, y: Int)]
    /// The reference's mean luma per block (NaN where clipped).
    private let reference: [Float]

    /// Keeps the block means of `referenceLuma` (0…1 luma).
    init(referenceLuma: Plane) {
        let b = Self.blockSize
        let area = Double(referenceLuma.width * referenceLuma.height)
        let step = min(Self.maximumStep, max(b, Int((area / Double(Self.targetBlocks)).squareRoot())))
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
        return ExposureFit.line(reference: reference, frame: projectedMeans(luma, inverse: inverse, field: field))
    }

    /// The frame's block means: each block pixel `(x, y)` of the reference
    /// sampled bilinearly in the frame at `inverse(x + dx, y + dy)` (`(dx,
    /// dy)` the field there, 0 without one), as the values its samples
    /// stand for; NaN for a block with a pixel outside the frame's
    /// pixel-centre extent or within `ExposureFit.clipMargin` of 0 or 1.
    /// Read straight from the samples with the inverse's matrix in
    /// registers, since this runs on every pixel of its blocks for every
    /// frame.
    private func projectedMeans<S: PlaneSample>(_ luma: PixelPlane<S>, inverse: Transform,
                                                field: DisplacementField?) -> [Float] {
        let m = inverse.matrix
        let m0 = m[0], m1 = m[1], m2 = m[2], m3 = m[3], m4 = m[4], m5 = m[5], m6 = m[6], m7 = m[7], m8 = m[8]
        let w = luma.width, h = luma.height
        let maxX = Double(w - 1), maxY = Double(h - 1)
        let low = ExposureFit.clipMargin, high = 1 - ExposureFit.clipMargin
        let b = Self.blockSize, unit = S.unit
        guard w > 1, h > 1 else { return [Float](repeating: .nan, count: corners.count) }
        return luma.pixels.withUnsafeBufferPointer { p in
            corners.map { c -> Float in
                var sum: Float = 0
                for j in 0..<b {
                    for i in 0..<b {
                        var x = Double(c.x + i), y = Double(c.y + j)
                        if let field {
                            let shift = field.displacement(x: x, y: y)
                            x += shift.dx; y += shift.dy
                        }
                        let d = m6 * x + m7 * y + m8
                        let u = (m0 * x + m1 * y + m2) / d, v = (m3 * x + m4 * y + m5) / d
                        guard u >= 0, v >= 0, u <= maxX, v <= maxY else { return .nan }
                        let ix = min(Int(u), w - 2), iy = min(Int(v), h - 2)
                        let tx = Float(u - Double(ix)), ty = Float(v - Double(iy))
                        let o = iy * w + ix
                        let a0 = p[o].float, b0 = p[o + 1].float, c0 = p[o + w].float, d0 = p[o + w + 1].float
                        let top = a0 + tx * (b0 - a0), bottom = c0 + tx * (d0 - c0)
                        let value = (top + ty * (bottom - top)) * unit
                        guard value > low && value < high else { return .nan }
                        sum += value
                    }
                }
                return sum / Float(b * b)
            }
        }
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
}
