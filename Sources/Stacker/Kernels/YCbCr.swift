public import Registration

/// The JFIF colour transform between R, G, B and Y, Cb, Cr (all 0…1, Cb and
/// Cr centred on 128/255), and the chroma resampling that goes with 4:2:0.
public enum YCbCr {
    /// The neutral chroma value, 128 / 255.
    static let neutral: Float = 128 / 255

    /// How 4:2:0 chroma is brought to the luma grid.
    public enum ChromaUpsampling: Sendable {
        /// Bilinear at the centred positions: libjpeg's "fancy" upsampling
        /// (weights 3/4 and 1/4 per axis), what TurboJPEG's RGB decode does.
        case bilinear
        /// Lanczos-3 at the same positions. The stacker's choice: on a
        /// shifted static 4:2:0 burst (8 frames, 320×240, q85) its average
        /// scored 38.0 dB against the truth, bilinear 36.9 dB, and averaging
        /// TurboJPEG's RGB frames 37.1 dB; the stacked chroma has little
        /// noise left for the sharper kernel to raise. `YCbCrStackingTests`
        /// checks each kernel against stacking RGB.
        case lanczos3
    }

    /// RGB planes from a Y plane and Cb, Cr planes shrunk by `factor` (1 or
    /// 2). With factor 2 the chroma is upsampled by `upsampling` at the
    /// centred positions (chroma coordinate `(x − 0.5) / 2` for luma column
    /// `x`, and the same for rows), edges clamped: first along the chroma
    /// rows a band of output rows needs, then down the columns as each
    /// output row is made. Values are not clamped, so an average keeps what
    /// lies outside 0…1. Bands run on `threads` threads; every pixel is
    /// computed alone, so the result does not depend on the split.
    ///
    /// The blue plane is written over the luma's buffer (each sample is read
    /// before it is overwritten), so a caller that hands over the only
    /// reference to `luma` saves a plane of fresh memory (48 MB at 12 MP).
    public static func rgb(luma: consuming Plane, cb: Plane, cr: Plane, factor: Int,
                           upsampling: ChromaUpsampling = .lanczos3,
                           threads: Int = Platform.processorCount) -> Image {
        let w = luma.width, h = luma.height
        precondition(factor == 1 || factor == 2)
        precondition(cb.width * factor == w && cb.height * factor == h && cr.width == cb.width && cr.height == cb.height)
        let kernel = UpsamplingKernel(upsampling)
        let rowsPerBand = 64
        var blue: [Float] = []
        swap(&blue, &luma.pixels)
        let planes = [[Float]](uninitialized: 2, count: w * h) { out in
            blue.withUnsafeMutableBufferPointer { yb in
            let job = ConversionJob(r: out[0], g: out[1], b: yb.baseAddress!)
            cb.pixels.withUnsafeBufferPointer { bp in
            cr.pixels.withUnsafeBufferPointer { rp in
                let sources = ConversionSources(y: UnsafePointer(yb.baseAddress!), cb: bp.baseAddress!,
                                                cr: rp.baseAddress!, chromaWidth: cb.width, chromaHeight: cb.height)
                parallelForEach((h + rowsPerBand - 1) / rowsPerBand, threads: threads) { band in
                    let rows = (band * rowsPerBand)..<min(h, (band + 1) * rowsPerBand)
                    if factor == 1 {
                        job.convert(rows: rows, from: sources, width: w)
                    } else {
                        job.convertUpsampling(rows: rows, from: sources, width: w, kernel: kernel)
                    }
                }
            }
            }
            }
        }
        return Image(width: w, height: h, planes: (planes + [blue]).map { Plane(width: w, height: h, pixels: $0) })
    }

    /// The taps of a 2× chroma upsampling: output sample 2i sits at chroma
    /// i − 1/4 = (i − 1) + 3/4, sample 2i + 1 at i + 1/4; `early` and
    /// `late` weigh `taps` samples from floor + `first` on.
    struct UpsamplingKernel: Sendable {
        let taps: Int, first: Int
        let early: [Float], late: [Float]

        init(_ upsampling: ChromaUpsampling) {
            switch upsampling {
            case .bilinear:
                (taps, first, early, late) = (2, 0, [0.25, 0.75], [0.75, 0.25])
            case .lanczos3:
                let k = Interpolation.lanczos3
                var e = [Float](repeating: 0, count: k.taps), l = e
                e.withUnsafeMutableBufferPointer { k.weights(0.75, into: $0.baseAddress!) }
                l.withUnsafeMutableBufferPointer { k.weights(0.25, into: $0.baseAddress!) }
                (taps, first, early, late) = (k.taps, k.firstTap, e, l)
            }
        }

        /// The first chroma row (unclamped) output row `row` reads, and its weights.
        func rowTaps(_ row: Int) -> (first: Int, weights: [Float]) {
            row % 2 == 0 ? (row / 2 - 1 + first, early) : (row / 2 + first, late)
        }
    }

    /// The planes of a conversion (read only, shared by the bands).
    struct ConversionSources: @unchecked Sendable {
        let y: UnsafePointer<Float>, cb: UnsafePointer<Float>, cr: UnsafePointer<Float>
        let chromaWidth: Int, chromaHeight: Int
    }

    /// The output planes of a conversion; bands write disjoint rows.
    struct ConversionJob: @unchecked Sendable {
        let r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>

        /// Converts output rows `rows` of full-resolution planes.
        func convert(rows: Range<Int>, from s: ConversionSources, width w: Int) {
            for row in rows { store(row, y: s.y + row * w, cb: s.cb + row * w, cr: s.cr + row * w, width: w) }
        }

        /// Converts output rows `rows` with 2× chroma: the chroma rows they
        /// read are widened into a buffer of the band's own, then each
        /// output row's chroma is blended from them down the columns.
        func convertUpsampling(rows: Range<Int>, from s: ConversionSources, width w: Int, kernel k: UpsamplingKernel) {
            let cw = s.chromaWidth
            let firstRow = k.rowTaps(rows.lowerBound).first
            let lastRow = k.rowTaps(rows.upperBound - 1).first + k.taps - 1
            let bandRows = lastRow - firstRow + 1
            let pad = k.taps
            // Widened Cb and Cr rows `firstRow…lastRow` (edge rows repeated),
            // two output lines, and one padded chroma row with its even and odd outputs.
            let wide = UnsafeMutablePointer<Float>.allocate(capacity: 2 * bandRows * w + 2 * w + 3 * cw + 2 * pad)
            defer { wide.deallocate() }
            let lines = wide + 2 * bandRows * w, padded = lines + 2 * w
            let row = padded + pad, even = row + cw + pad, odd = even + cw
            var taps = [UnsafePointer<Float>](repeating: UnsafePointer(row), count: k.taps)
            for (p, plane) in [s.cb, s.cr].enumerated() {
                for j in 0..<bandRows {
                    row.update(from: plane + min(max(firstRow + j, 0), s.chromaHeight - 1) * cw, count: cw)
                    for i in 0..<pad {
                        padded[i] = row[0]
                        row[cw + i] = row[cw - 1]
                    }
                    for (weights, shift, into) in [(k.early, k.first - 1, even), (k.late, k.first, odd)] {
                        for t in 0..<k.taps { taps[t] = UnsafePointer(row + shift + t) }
                        weights.withUnsafeBufferPointer { TapSum.combine(taps, weights: $0, count: cw, into: into) }
                    }
                    let o = wide + (p * bandRows + j) * w
                    for i in 0..<cw {
                        o[2 &* i] = even[i]
                        o[2 &* i &+ 1] = odd[i]
                    }
                }
            }
            for y in rows {
                let (first, weights) = k.rowTaps(y)
                weights.withUnsafeBufferPointer { wp in
                    for p in 0..<2 {
                        for t in 0..<k.taps { taps[t] = UnsafePointer(wide + (p * bandRows + first - firstRow + t) * w) }
                        TapSum.combine(taps, weights: wp, count: w, into: lines + p * w)
                    }
                }
                store(y, y: s.y + y * w, cb: lines, cr: lines + w, width: w)
            }
        }

        /// Output row `row` from one row of Y, Cb and Cr.
        @inline(__always)
        private func store(_ row: Int, y yr: UnsafePointer<Float>, cb u: UnsafePointer<Float>,
                           cr v: UnsafePointer<Float>, width w: Int) {
            let (ro, go, bo) = (r + row * w, g + row * w, b + row * w)
            for x in 0..<w {
                let Y = yr[x], U = u[x] - neutral, V = v[x] - neutral
                ro[x] = Y + 1.402 * V
                go[x] = Y - 0.344136 * U - 0.714136 * V
                bo[x] = Y + 1.772 * U
            }
        }
    }

    /// Y and Cb, Cr planes shrunk by `factor` (a box average over each
    /// chroma pixel's `factor × factor` luma pixels, which centres it as
    /// JFIF does) from an RGB image; the inverse of `rgb` up to the chroma
    /// resolution. The image's size must be a multiple of `factor`.
    public static func split(_ image: Image, factor: Int) -> (luma: Plane, chroma: [Plane]) {
        precondition(image.channels == 3 && image.width % factor == 0 && image.height % factor == 0)
        let (luma, _) = image.luma(downsampledBy: 1)
        let n = image.pixelCount
        var cb = [Float](repeating: 0, count: n), cr = cb
        image.planes[0].pixels.withUnsafeBufferPointer { r in
        image.planes[1].pixels.withUnsafeBufferPointer { g in
        image.planes[2].pixels.withUnsafeBufferPointer { b in
            for i in 0..<n {
                cb[i] = -0.168736 * r[i] - 0.331264 * g[i] + 0.5 * b[i] + neutral
                cr[i] = 0.5 * r[i] - 0.418688 * g[i] - 0.081312 * b[i] + neutral
            }
        }
        }
        }
        let w = image.width, h = image.height
        return (luma, [Plane(width: w, height: h, pixels: cb).downsampled(by: factor),
                       Plane(width: w, height: h, pixels: cr).downsampled(by: factor)])
    }

    /// `transform` (frame → reference, in luma pixels) restated for chroma
    /// planes shrunk by `factor` with centred samples: chroma coordinate `c`
    /// is luma coordinate `factor·c + (factor − 1)/2`.
    public static func chromaTransform(_ transform: Transform, factor: Int) -> Transform {
        guard factor > 1 else { return transform }
        let f = Double(factor), o = (f - 1) / 2
        let toLuma = Transform(matrix: [f, 0, o, 0, f, o, 0, 0, 1])
        let toChroma = Transform(matrix: [1 / f, 0, -o / f, 0, 1 / f, -o / f, 0, 0, 1])
        return toChroma.concatenating(transform).concatenating(toLuma)
    }
}
