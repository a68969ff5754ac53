public import Registration

/// Masks made from a nearness map (0…1, 1 = nearest), as in Apple's depth
/// tutorials: 1 where an effect keeps the photo, 0 where it applies fully.
public enum EffectMask {
    /// Which depths a mask selects.
    public enum Shape: String, Sendable, CaseIterable {
        /// A band of `width` around the focus: 1 inside, falling linearly to
        /// 0 over 1/slope on each side.
        case band
        /// Everything at least as near as the focus: 1 there, falling
        /// linearly to 0 over 1/slope farther away.
        case highPass = "high-pass"
    }

    /// The band-pass mask: 1 where |d − focus| ≤ width/2, then
    /// 1 − slope·(|d − focus| − width/2), clamped to 0…1.
    public static func band(_ nearness: Plane, focus: Float, width: Float, slope: Float) -> Plane {
        map(nearness) { d in 1 - slope * max(0, abs(d - focus) - width / 2) }
    }

    /// The high-pass mask: 1 where d ≥ focus, then 1 − slope·(focus − d),
    /// clamped to 0…1.
    public static func highPass(_ nearness: Plane, focus: Float, slope: Float) -> Plane {
        map(nearness) { d in 1 - slope * max(0, focus - d) }
    }

    /// 1 − mask.
    public static func inverted(_ mask: Plane) -> Plane { map(mask) { 1 - $0 } }

    /// Bins of the histogram `autoFocus` reads.
    static let histogramBins = 64
    /// A mode must hold at least this share of the pixels to count as an object.
    static let smallestObject: Float = 0.05

    /// The focus that picks the largest near object: the nearness of the
    /// nearest mode of the map's histogram (64 bins, smoothed over 5) that
    /// holds at least 5 % of the pixels within its peak's half-width; the
    /// highest mode of all when none does. The value is the mean nearness
    /// of the 5 bins around that mode.
    public static func autoFocus(_ nearness: Plane) -> Float {
        let n = histogramBins
        var histogram = [Float](repeating: 0, count: n)
        for d in nearness.pixels { histogram[min(n - 1, max(0, Int(d * Float(n))))] += 1 }
        let total = Float(max(1, nearness.count))
        let smooth = (0..<n).map { i in
            (max(0, i - 2)...min(n - 1, i + 2)).reduce(Float(0)) { $0 + histogram[$1] } / total
        }
        var best: (bin: Int, mass: Float)?
        var nearest: Int?
        for i in 0..<n where smooth[i] > 0 {
            let left = i == 0 ? -1 : smooth[i - 1], right = i == n - 1 ? -1 : smooth[i + 1]
            guard smooth[i] > left && smooth[i] >= right else { continue }
            // The mode's mass: its bins down to half its peak on either side.
            var lo = i, hi = i
            while lo > 0 && smooth[lo - 1] >= smooth[i] / 2 && smooth[lo - 1] <= smooth[lo] { lo -= 1 }
            while hi < n - 1 && smooth[hi + 1] >= smooth[i] / 2 && smooth[hi + 1] <= smooth[hi] { hi += 1 }
            let mass = (lo...hi).reduce(Float(0)) { $0 + histogram[$1] } / total
            if mass >= smallestObject { nearest = i }
            if best == nil || smooth[i] > best!.mass { best = (i, smooth[i]) }
        }
        guard let bin = nearest ?? best?.bin else { return 0.5 }
        // The mean of the raw bins the smoothing gathered into the peak.
        let window = max(0, bin - 2)...min(n - 1, bin + 2)
        let mass = window.reduce(Float(0)) { $0 + histogram[$1] }
        guard mass > 0 else { return (Float(bin) + 0.5) / Float(n) }
        return window.reduce(Float(0)) { $0 + histogram[$1] * (Float($1) + 0.5) } / mass / Float(n)
    }

    private static func map(_ plane: Plane, _ f: (Float) -> Float) -> Plane {
        Plane(width: plane.width, height: plane.height, pixels: plane.pixels.map { min(1, max(0, f($0))) })
    }
}
