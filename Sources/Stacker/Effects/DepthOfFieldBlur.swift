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
/// the lanes of one interleaved record a pixel: the row pass keeps running
/// sums of all lanes in `Double` and writes their row means (with the
/// pixel's radius, mask and values, so the column pass reads nothing else);
/// the column pass sums them down strips of `strip` columns and divides the
/// channels by the weight as it writes, blending with the mask in the same
/// step when asked. The photo goes through in bands of rows, so the records
/// and the column sums stay small (in cache) whatever its size.
enum DepthOfFieldBlur {
    /// Columns per strip of the column pass: its running sums, (held rows
    /// + 1) × strip × lanes doubles, stay in cache.
    static let strip = 16

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

    /// Rows of the photo each band of the column pass writes.
    static let bandRows = 512

    /// The photo is filtered in bands of `bandRows` rows: the row pass fills
    /// one reused buffer for the band and `radius` rows either side (the
    /// farthest a column window reaches), the column pass writes the band.
    /// So the buffer and the column sums stay small whatever the photo.
    private static func filtered(_ image: Image, radius: Plane, subject: Plane, blend: Bool) -> Image {
        let w = image.width, h = image.height, channels = image.channels
        precondition(radius.width == w && radius.height == h && subject.width == w && subject.height == h,
                     "radius \(radius.width)×\(radius.height) or mask \(subject.width)×\(subject.height) does not match \(w)×\(h)")
        let reach = min(h, Int(max(0, radius.pixels.max() ?? 0).rounded()))
        let rows = min(h, bandRows + 2 * reach)
        let records = UnsafeMutablePointer<Float>.allocate(capacity: rows * w * recordLength(channels))
        defer { records.deallocate() }
        let planes = withOutputs(count: channels, length: w * h) { outputs in
            withInputs(image.planes.map(\.pixels)) { inputs in
                subject.pixels.withUnsafeBufferPointer { mask in
                    radius.pixels.withUnsafeBufferPointer { rad in
                        for first in stride(from: 0, to: h, by: bandRows) {
                            let band = first..<min(h, first + bandRows)
                            let held = max(0, band.lowerBound - reach)..<min(h, band.upperBound + reach)
                            rowPass(rows: held, inputs: inputs, mask: mask.baseAddress!, radius: rad.baseAddress!,
                                    width: w, into: records)
                            columnPass(records: records, held: held, band: band, outputs: outputs,
                                       width: w, height: h, channels: channels, blend: blend)
                        }
                    }
                }
            }
        }
        return Image(width: w, height: h, planes: planes.map { Plane(width: w, height: h, pixels: $0) })
    }

    /// The row pass over rows `rows`: for each pixel, lane 0 the row mean of
    /// the weight `1 − mask` within its radius (rounded), lane c + 1 that of
    /// weight × channel c, and its radius, mask and channel values
    /// (`recordLength` floats a pixel), laid out strip by strip (the rows of
    /// columns 0..<strip, then the next strip) so the column pass reads its
    /// strip in one run; within a strip's row, the lanes of its pixels, then
    /// their radius, mask and values.
    private static func rowPass(rows: Range<Int>, inputs: [UnsafePointer<Float>], mask: UnsafePointer<Float>,
                                radius: UnsafePointer<Float>, width w: Int, into out: UnsafeMutablePointer<Float>) {
        let channels = inputs.count, lanes = channels + 1, record = recordLength(channels)
        let prefix = UnsafeMutablePointer<Double>.allocate(capacity: (w + 1) * lanes)
        defer { prefix.deallocate() }
        for l in 0..<lanes { prefix[l] = 0 }
        // 1 / n for every window length n, so no division waits in the loop.
        let reciprocals = UnsafeMutablePointer<Double>.allocate(capacity: w + 1)
        defer { reciprocals.deallocate() }
        for n in 0...w { reciprocals[n] = 1 / Double(n) }
        for y in rows {
            let base = y * w
            for x in 0..<w {
                let weight = Double(1 - mask[base + x])
                let here = prefix + (x + 1) * lanes, before = prefix + x * lanes
                here[0] = before[0] + weight
                for c in 0..<channels { here[c + 1] = before[c + 1] + weight * Double(inputs[c][base + x]) }
            }
            for x0 in stride(from: 0, to: w, by: strip) {
                let n = min(strip, w - x0)
                let stripRow = out + x0 * rows.count * record + (y - rows.lowerBound) * n * record
                for k in 0..<n {
                    let x = x0 + k
                    let r = Int(max(0, radius[base + x]).rounded())
                    let lo = max(0, x - r), hi = min(w, x + r + 1)
                    let scale = reciprocals[hi - lo]
                    let at = stripRow + k * lanes, top = prefix + hi * lanes, bottom = prefix + lo * lanes
                    for l in 0..<lanes { at[l] = Float((top[l] - bottom[l]) * scale) }
                    let extra = stripRow + n * lanes + k * (record - lanes)
                    extra[0] = Float(r)
                    extra[1] = mask[base + x]
                    for c in 0..<channels { extra[2 + c] = inputs[c][base + x] }
                }
            }
        }
    }

    /// The column pass over the records of rows `held`, writing rows `band`:
    /// each pixel sums the row means of its column within its radius, lane
    /// by lane, and writes channel sum over weight sum (clamped to 0…1; the
    /// photo's value where the mean weight is below 1e-4), blended with the
    /// mask when `blend` is set. `held` reaches every window of `band`.
    private static func columnPass(records: UnsafePointer<Float>, held: Range<Int>, band: Range<Int>,
                                   outputs: [UnsafeMutablePointer<Float>],
                                   width w: Int, height h: Int, channels: Int, blend: Bool) {
        let lanes = channels + 1, record = recordLength(channels), row = strip * lanes, rows = held.count
        let prefix = UnsafeMutablePointer<Double>.allocate(capacity: (rows + 1) * row)
        defer { prefix.deallocate() }
        for x0 in stride(from: 0, to: w, by: strip) {
            let n = min(strip, w - x0), strips = records + x0 * rows * record
            for k in 0..<(n * lanes) { prefix[k] = 0 }
            let span = n * lanes
            for y in 0..<rows {
                let from = strips + y * n * record, above = prefix + y * row, here = prefix + (y + 1) * row
                for k in 0..<span { here[k] = above[k] + Double(from[k]) }
            }
            for y in band {
                let from = strips + (y - held.lowerBound) * n * record
                for k in 0..<n {
                    let pixel = from + span + k * (record - lanes)
                    let r = Int(pixel[0]), m = pixel[1]
                    let lo = max(0, y - r), hi = min(h, y + r + 1)
                    let top = prefix + (hi - held.lowerBound) * row + k * lanes
                    let bottom = prefix + (lo - held.lowerBound) * row + k * lanes
                    let weight = top[0] - bottom[0]
                    let weighted = weight > 1e-4 * Double(hi - lo)
                    let scale = 1 / weight
                    let i = y * w + x0 + k
                    for c in 0..<channels {
                        let v = pixel[2 + c]
                        let blurred = weighted ? min(1, max(0, Float((top[c + 1] - bottom[c + 1]) * scale))) : v
                        outputs[c][i] = !blend ? blurred : (m >= 1 ? v : m * v + (1 - m) * blurred)
                    }
                }
            }
        }
    }

    /// Floats a pixel takes between the passes: the lanes' row means, its
    /// radius, its mask value and its channels' values.
    private static func recordLength(_ channels: Int) -> Int { 2 * channels + 3 }

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
