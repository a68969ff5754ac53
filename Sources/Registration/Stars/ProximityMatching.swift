/// One-to-one pairing of frame stars with reference stars under a known
/// transform: each frame star takes the nearest reference star within a
/// radius, and when two frame stars claim the same reference star the
/// closer one keeps it.
struct ProximityMatching: Sendable {
    /// Reference star positions (pixels) and the grid over them.
    let reference: [SIMD2<Double>]
    let grid: PointGrid
    /// Largest radius (px) `pairs` may be asked for.
    let maximumRadius: Double

    /// Indexes `reference` for queries up to `maximumRadius` pixels.
    init(reference: [SIMD2<Double>], maximumRadius: Double) {
        self.reference = reference
        self.maximumRadius = maximumRadius
        grid = PointGrid(points: reference, radius: maximumRadius)
    }

    /// Pairs `(frame index, reference index, distance in px)` of `frame`
    /// points mapped by `transform`, within `radius` (≤ `maximumRadius`).
    func pairs(_ frame: [SIMD2<Double>], transform: Transform, radius: Double) -> [(frame: Int, reference: Int, distance: Double)] {
        let r2 = min(radius, maximumRadius) * min(radius, maximumRadius)
        var owner = [Int](repeating: -1, count: reference.count)
        var ownerDistance = [Double](repeating: .infinity, count: reference.count)
        for (i, p) in frame.enumerated() {
            let q = transform.apply(x: p.x, y: p.y)
            var best = -1, bestD2 = r2
            grid.forEachNear(q.x, q.y) { k in
                let dx = reference[k].x - q.x, dy = reference[k].y - q.y
                let d2 = dx * dx + dy * dy
                if d2 <= bestD2 { bestD2 = d2; best = k }
            }
            if best >= 0, bestD2 < ownerDistance[best] { owner[best] = i; ownerDistance[best] = bestD2 }
        }
        var out: [(frame: Int, reference: Int, distance: Double)] = []
        for k in 0..<reference.count where owner[k] >= 0 {
            out.append((owner[k], k, ownerDistance[k].squareRoot()))
        }
        return out
    }
}
