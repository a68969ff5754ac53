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
    /// `x`, and the same for rows), edges clamped. Values are not clamped,
    /// so an average keeps what lies outside 0…1. Rows are converted in
    /// bands on `threads` threads; every pixel is computed alone, so the
    /// result does not depend on the split.
    public static func rgb(luma: Plane, cb: Plane, cr: Plane, factor: Int,
                           upsampling: ChromaUpsampling = .lanczos3,
                           threads: Int = StackOptions.defaultThreadCount) -> Image {
        let w = luma.width, h = luma.height
        precondition(factor == 1 || factor == 2)
        precondition(cb.width * factor == w && cb.height * factor == h && cr.width == cb.width && cr.height == cb.height)
        let kernel = UpsamplingKernel(upsampling)
        let rowsPerBand = 64
        let planes = [[Float]](uninitialized: 3, count: w * h) { out in
            let job = ConversionJob(r: out[0], g: out[1], b: out[2])
            luma.pixels.withUnsafeBufferPointer { yp in
            cb.pixels.withUnsafeBufferPointer { bp in
            cr.pixels.withUnsafeBufferPointer { rp in
                let sources = ConversionSources(y: yp.baseAddress!, cb: bp.baseAddress!, cr: rp.baseAddress!)
                parallelForEach((h + rowsPerBand - 1) / rowsPerBand, threads: threads) { band in
                    let rows = (band * rowsPerBand)..<min(h, (band + 1) * rowsPerBand)
                    job.convert(rows: rows, from: sources, width: w, chroma: (cb.width, cb.height), factor: factor,
                                kernel: kernel)
                }
            }
            }
            }
        }
        return Image(width: w, height: h, planes: planes.map { Plane(width: w, height: h, pixels: $0) })
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
    }

    /// The source planes of a conversion (read only, shared by the bands).
    struct ConversionSources: @unchecked Sendable {
        let y: UnsafePointer<Float>, cb: UnsafePointer<Float>, cr: UnsafePointer<Float>
    }

    /// The output planes of a conversion; bands write disjoint rows.
    struct ConversionJob: @unchecked Sendable {
        let r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>

        /// Converts output rows `rows`, with its own line buffers.
        func convert(rows: Range<Int>, from s: ConversionSources, width w: Int, chroma: (width: Int, height: Int),
                     factor: Int, kernel k: UpsamplingKernel) {
            let (cw, chh) = chroma
            let pad = k.taps
            // Upsampled Cb and Cr rows, and one blended chroma row padded
            // with its clamped edge samples so the horizontal taps need no
            // clamping.
            let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 2 * w + cw + 2 * pad)
            defer { scratch.deallocate() }
            let lineB = scratch, lineR = scratch + w, padded = scratch + 2 * w, blend = padded + pad
            var rowStarts = [Int](repeating: 0, count: k.taps)
            for row in rows {
                let u: UnsafePointer<Float>, v: UnsafePointer<Float>
                if factor == 1 {
                    u = s.cb + row * cw
                    v = s.cr + row * cw
                } else {
                    let (base, weights) = row % 2 == 0 ? (row / 2 - 1, k.early) : (row / 2, k.late)
                    for t in 0..<k.taps { rowStarts[t] = min(max(base + k.first + t, 0), chh - 1) * cw }
                    for (plane, line) in [(s.cb, lineB), (s.cr, lineR)] {
                        let first = plane + rowStarts[0], w0 = weights[0]
                        for i in 0..<cw { blend[i] = w0 * first[i] }
                        for t in 1..<k.taps {
                            let wt = weights[t], p = plane + rowStarts[t]
                            for i in 0..<cw { blend[i] += wt * p[i] }
                        }
                        for i in 0..<pad {
                            padded[i] = blend[0]
                            blend[cw + i] = blend[cw - 1]
                        }
                        YCbCr.upsampleRow(blend, width: cw, kernel: k, into: line)
                    }
                    u = UnsafePointer(lineB)
                    v = UnsafePointer(lineR)
                }
                let yr = s.y + row * w
                let (ro, go, bo) = (r + row * w, g + row * w, b + row * w)
                for x in 0..<w {
                    let Y = yr[x], U = u[x] - neutral, V = v[x] - neutral
                    ro[x] = Y + 1.402 * V
                    go[x] = Y - 0.344136 * U - 0.714136 * V
                    bo[x] = Y + 1.772 * U
                }
            }
        }
    }

    /// One chroma row (`cw` samples, readable `taps` past either end)
    /// upsampled 2× into `out`: sample 2i from the taps around i − 1 with
    /// `early` weights, 2i + 1 from those around i with `late` weights.
    static func upsampleRow(_ c: UnsafePointer<Float>, width cw: Int, kernel k: UpsamplingKernel,
                            into out: UnsafeMutablePointer<Float>) {
        k.early.withUnsafeBufferPointer { early in
            k.late.withUnsafeBufferPointer { late in
                let e = c + (k.first - 1), l = c + k.first
                for i in 0..<cw {
                    var a: Float = 0, z: Float = 0
                    for t in 0..<k.taps {
                        a += early[t] * e[i + t]
                        z += late[t] * l[i + t]
                    }
                    out[2 * i] = a
                    out[2 * i + 1] = z
                }
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
