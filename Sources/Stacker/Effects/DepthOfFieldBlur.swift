internal import Registration

/// A depth-of-field blur: each pixel is averaged over a square window whose
/// radius it is given, and only pixels outside the sharp subject count in
/// the average (normalised convolution with weight 1 − mask), so the
/// subject's colours do not bleed into the blurred background around it (no
/// halo). The variable window is the separable box approximation of
/// `BoxFilter.variableMean` (rows, then columns with the radius of the pixel
/// written), whatever the radius.
///
/// The weight and the weighted channels go through each pass together, as
/// the lanes of one interleaved buffer: the row pass keeps running sums of
/// all lanes in `Double` and writes their row means; the column pass sums
/// them down strips of `strip` columns (read in row order, no transposed
/// copy) and divides the channels by the weight as it writes, blending with
/// the mask in the same step when asked. So a photo is read once per pass,
/// with one division per pixel for all lanes.
enum DepthOfFieldBlur {
    /// Columns per strip of the column pass: its running sums, (height + 1)
    /// × strip × lanes doubles, stay in cache for a photo's height.
    static let strip = 32

    /// `image` blurred with `radius[x, y]` pixels (rounded) at each pixel,
    /// weighting each sample by `1 − subject`; where no weight falls in the
    /// window (inside a large subject) the pixel is kept.
    static func blurred(_ image: Image, radius: Plane, subject: Plane) -> Image {
        filtered(image, radius: radius, subject: subject, blend: false)
    }

    /// `subject · image + (1 − subject) · blurred(image, radius:, subject:)`:
    /// the blur composited behind the subject, where a mask of 1 passes the
    /// photo's value through exactly.
    static func composited(_ image: Image, radius: Plane, subject: Plane) -> Image {
        filtered(image, radius: radius, subject: subject, blend: true)
    }

    private static func filtered(_ image: Image, radius: Plane, subject: Plane, blend: Bool) -> Image {
        let w = image.width, h = image.height, channels = image.channels
        precondition(radius.width == w && radius.height == h && subject.width == w && subject.height == h,
                     "radius \(radius.width)×\(radius.height) or mask \(subject.width)×\(subject.height) does not match \(w)×\(h)")
        let lanes = channels + 1
        let radii = BoxFilter.Radii(radius).values
        let rowMeans = rowPass(image, subject: subject.pixels, radii: radii)
        let planes = withOutputs(count: channels, length: w * h) { outputs in
            withInputs(image.planes.map(\.pixels)) { inputs in
                rowMeans.withUnsafeBufferPointer { means in
                    radii.withUnsafeBufferPointer { radii in
                        subject.pixels.withUnsafeBufferPointer { mask in
                            columnPass(means: means.baseAddress!, radii: radii.baseAddress!, mask: mask.baseAddress!,
                                       inputs: inputs, outputs: outputs, width: w, height: h, lanes: lanes, blend: blend)
                        }
                    }
                }
            }
        }
        return Image(width: w, height: h, planes: planes.map { Plane(width: w, height: h, pixels: $0) })
    }

    /// The row pass: for each pixel, lane 0 the row mean of the weight
    /// `1 − subject` within its radius, lane c + 1 that of weight × channel c;
    /// interleaved, `lanes` floats a pixel, laid out strip by strip (all rows
    /// of columns 0..<strip, then the next strip) so the column pass reads
    /// its strip in one run.
    private static func rowPass(_ image: Image, subject: [Float], radii: [Int32]) -> [Float] {
        let w = image.width, h = image.height, lanes = image.channels + 1
        var prefix = [Double](repeating: 0, count: (w + 1) * lanes)
        return [Float](unsafeUninitializedCapacity: w * h * lanes) { dst, initialised in
            withInputs(image.planes.map(\.pixels)) { inputs in
                subject.withUnsafeBufferPointer { mask in
                    radii.withUnsafeBufferPointer { rad in
                        prefix.withUnsafeMutableBufferPointer { prefixBuffer in
                            let prefix = prefixBuffer.baseAddress!, out = dst.baseAddress!
                            for y in 0..<h {
                                let base = y * w
                                for x in 0..<w {
                                    let weight = Double(1 - mask[base + x])
                                    let here = (x + 1) * lanes, before = x * lanes
                                    prefix[here] = prefix[before] + weight
                                    for c in 0..<(lanes - 1) {
                                        prefix[here + c + 1] = prefix[before + c + 1] + weight * Double(inputs[c][base + x])
                                    }
                                }
                                for x0 in stride(from: 0, to: w, by: strip) {
                                    let n = min(strip, w - x0)
                                    let stripRow = out + x0 * h * lanes + y * n * lanes
                                    for k in 0..<n {
                                        let x = x0 + k
                                        let r = Int(rad[base + x])
                                        let lo = max(0, x - r), hi = min(w, x + r + 1)
                                        let scale = 1 / Double(hi - lo)
                                        let at = k * lanes, top = hi * lanes, bottom = lo * lanes
                                        for l in 0..<lanes {
                                            stripRow[at + l] = Float((prefix[top + l] - prefix[bottom + l]) * scale)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            initialised = w * h * lanes
        }
    }

    /// The column pass over the row means: each pixel sums the means of its
    /// column within its radius, lane by lane, and writes channel sum over
    /// weight sum (clamped to 0…1; the photo's value where the mean weight
    /// is below 1e-4), blended with the mask when `blend` is set.
    private static func columnPass(means: UnsafePointer<Float>, radii: UnsafePointer<Int32>, mask: UnsafePointer<Float>,
                                   inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>],
                                   width w: Int, height h: Int, lanes: Int, blend: Bool) {
        let row = strip * lanes
        let prefix = UnsafeMutablePointer<Double>.allocate(capacity: (h + 1) * row)
        defer { prefix.deallocate() }
        for x0 in stride(from: 0, to: w, by: strip) {
            let n = min(strip, w - x0), span = n * lanes
            for k in 0..<span { prefix[k] = 0 }
            for y in 0..<h {
                let from = means + x0 * h * lanes + y * span, above = prefix + y * row, here = prefix + (y + 1) * row
                for k in 0..<span { here[k] = above[k] + Double(from[k]) }
            }
            for y in 0..<h {
                for k in 0..<n {
                    let i = y * w + x0 + k
                    let r = Int(radii[i])
                    let lo = max(0, y - r), hi = min(h, y + r + 1)
                    let top = prefix + hi * row + k * lanes, bottom = prefix + lo * row + k * lanes
                    let weight = top[0] - bottom[0]
                    let weighted = weight > 1e-4 * Double(hi - lo)
                    let scale = 1 / weight
                    let m = mask[i]
                    for c in 0..<(lanes - 1) {
                        let v = inputs[c][i]
                        let blurred = weighted ? min(1, max(0, Float((top[c + 1] - bottom[c + 1]) * scale))) : v
                        outputs[c][i] = !blend ? blurred : (m >= 1 ? v : m * v + (1 - m) * blurred)
                    }
                }
            }
        }
    }

    /// Runs `body` with the base addresses of `arrays`, in order.
    private static func withInputs<R>(_ arrays: [[Float]], _ body: ([UnsafePointer<Float>]) -> R) -> R {
        guard let first = arrays.first else { return body([]) }
        return first.withUnsafeBufferPointer { buffer in
            withInputs(Array(arrays.dropFirst())) { rest in body([buffer.baseAddress!] + rest) }
        }
    }

    /// `count` arrays of `length` floats, each written in full by `body`
    /// through its base address.
    private static func withOutputs(count: Int, length: Int, _ body: ([UnsafeMutablePointer<Float>]) -> Void) -> [[Float]] {
        guard count > 0 else { body([]); return [] }
        var rest: [[Float]] = []
        let first = [Float](unsafeUninitializedCapacity: length) { buffer, initialised in
            rest = withOutputs(count: count - 1, length: length) { others in body([buffer.baseAddress!] + others) }
            initialised = length
        }
        return [first] + rest
    }
}
