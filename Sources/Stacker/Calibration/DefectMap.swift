import Registration

/// Hot and cold sensor pixels, found in a master dark, and their repair.
///
/// A pixel is hot when, in any channel of the dark, it lies more than
/// `sigma` robust standard deviations (1.4826 · MAD) above that channel's
/// median, and cold when it lies as far below. The robust σ is floored at
/// one 16-bit step (1/65535) so a perfectly clean synthetic dark does not
/// make every pixel a defect. Repair replaces a defect sample with the
/// median of the good pixels in its 3×3 neighbourhood (5×5 when none of the
/// 8 neighbours is good), so a cluster of defects does not feed on itself.
public struct DefectMap: Sendable, Equatable {
    /// Width of the sensor in pixels.
    public let width: Int
    /// Height of the sensor in pixels.
    public let height: Int
    /// Row-major indices `y · width + x` of hot pixels, ascending.
    public let hot: [Int]
    /// Row-major indices of cold pixels, ascending.
    public let cold: [Int]

    /// Finds the defects of `dark` at `sigma` robust σ.
    public init(dark: Image, sigma: Double) {
        width = dark.width
        height = dark.height
        var hotSet = Set<Int>(), coldSet = Set<Int>()
        for plane in dark.planes {
            let stats = RobustStatistics.of(plane)
            let spread = max(stats.sigma, 1.0 / 65535)
            let high = Float(stats.median + sigma * spread), low = Float(stats.median - sigma * spread)
            plane.pixels.withUnsafeBufferPointer { p in
                for i in 0..<p.count {
                    if p[i] > high { hotSet.insert(i) } else if p[i] < low { coldSet.insert(i) }
                }
            }
        }
        coldSet.subtract(hotSet)
        hot = hotSet.sorted()
        cold = coldSet.sorted()
    }

    /// Number of defective pixels.
    public var count: Int { hot.count + cold.count }

    /// Replaces every defect sample of `image` (same size as the map) with
    /// the median of its good neighbours, channel by channel.
    public func repair(_ image: inout Image) {
        guard count > 0, image.width == width, image.height == height else { return }
        let bad = Set(hot).union(cold)
        let defects = hot + cold
        for c in 0..<image.channels {
            let source = image.planes[c].pixels
            var fixed = source
            var neighbours: [Float] = []
            neighbours.reserveCapacity(24)
            for i in defects {
                let x = i % width, y = i / width
                for radius in 1...2 {
                    neighbours.removeAll(keepingCapacity: true)
                    for yy in max(0, y - radius)...min(height - 1, y + radius) {
                        for xx in max(0, x - radius)...min(width - 1, x + radius) {
                            let j = yy * width + xx
                            if j != i && !bad.contains(j) { neighbours.append(source[j]) }
                        }
                    }
                    if !neighbours.isEmpty { break }
                }
                guard !neighbours.isEmpty else { continue }
                neighbours.sort()
                let m = neighbours.count / 2
                fixed[i] = neighbours.count % 2 == 1 ? neighbours[m] : (neighbours[m - 1] + neighbours[m]) / 2
            }
            image.planes[c].pixels = fixed
        }
    }
}
