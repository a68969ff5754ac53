import Registration

/// `--reference auto`: choose the sharpest frame as the reference.
///
/// Sharpness is the mean squared gradient of the frame's luma after a box
/// downscale to at most 1024 px on the long side (the downscale averages
/// noise away, so the measure follows detail and blur, not noise). Camera
/// shake and focus misses lower it; it costs one extra decode per frame.
enum ReferenceSelection {
    /// The long side frames are reduced to before measuring.
    static let measureSize = 1024

    /// The index of the sharpest readable frame and every frame's sharpness
    /// (nil for frames that could not be read, when `skipBad`).
    static func sharpest(_ sources: [FrameSource], names: [String],
                         options: StackOptions) throws -> (index: Int, sharpness: [Double?]) {
        let outcomes = parallelMap(sources.count, threads: max(1, options.threads)) { i -> Result<Double, StackerError> in
            do {
                let image = try sources[i].image(maxPixels: options.maxPixels)
                return .success(sharpness(of: image.luma))
            } catch {
                return .failure((error as? StackerError) ?? .unreadable(path: names[i], reason: "\(error)"))
            }
        }
        var values: [Double?] = []
        for outcome in outcomes {
            switch outcome {
            case .success(let s): values.append(s)
            case .failure(let e):
                guard options.skipBadFrames else { throw e }
                values.append(nil)
            }
        }
        var best: Int?
        for (i, v) in values.enumerated() {
            if let v, best == nil || v > values[best!]! { best = i }
        }
        guard let best else {
            throw StackerError.stackingFailed(path: "", reason: "no frame could be read to choose a reference")
        }
        return (best, values)
    }

    /// Mean squared central-difference gradient of `plane` reduced to ≤ `measureSize`.
    static func sharpness(of plane: Plane) -> Double {
        let factor = max(1, (max(plane.width, plane.height) + measureSize - 1) / measureSize)
        let p = factor > 1 ? plane.downsampled(by: factor) : plane
        guard p.width >= 3, p.height >= 3 else { return 0 }
        var sum = 0.0
        p.pixels.withUnsafeBufferPointer { px in
            let w = p.width
            for y in 1..<(p.height - 1) {
                for x in 1..<(w - 1) {
                    let gx = Double(px[y * w + x + 1] - px[y * w + x - 1])
                    let gy = Double(px[(y + 1) * w + x] - px[(y - 1) * w + x])
                    sum += gx * gx + gy * gy
                }
            }
        }
        return sum / Double((p.width - 2) * (p.height - 2))
    }
}
