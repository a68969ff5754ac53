/// Places the moving objects so that the coverage limits hold by construction.
///
/// The reference frame is divided into small cells. An object's footprint on
/// each frame it is visible on (its bounding box, grown by `margin` px to allow
/// for the frame's own pixel grid and the soft edge) is added to per-cell
/// counts: the number of frames in which any object covers the cell, and, when
/// asked, the number per palette colour. A candidate that would push any cell
/// past `floor(objectCoverage · frameCount)` frames (or past the per-colour
/// cap) is rejected and another is drawn.
enum ObjectPlanner {
    /// Cell size of the coverage grid (px). Smaller is tighter but slower.
    static let cellSize = 4
    /// Growth of each footprint (px): ½ px pixel area + ½ px soft edge + nearest-pixel
    /// mapping between grids, with room to spare.
    static let margin = 2.5

    /// Vivid, pairwise well separated colours (≥ 0.3 apart in some channel).
    static let vivid: [[Float]] = [
        [0.90, 0.10, 0.10], [0.10, 0.70, 0.15], [0.10, 0.25, 0.90], [0.95, 0.85, 0.10],
        [0.85, 0.15, 0.80], [0.10, 0.80, 0.85], [0.98, 0.55, 0.05], [0.50, 0.10, 0.60],
        [0.98, 0.98, 0.98], [0.05, 0.05, 0.05], [0.55, 0.95, 0.45], [0.95, 0.60, 0.70],
    ]
    /// Light colours of the busy spots' parked objects: each channel 0.72,
    /// 0.86 or 1.0, so any two differ by ≥ 0.14 in some channel (more than
    /// the mode kernel's tolerance) and all are lighter than the street and
    /// road they stand on, so there the objects, not the background, hold
    /// the middle of every channel's sorted samples.
    static let light: [[Float]] = [
        [1.0, 0.72, 0.72], [0.72, 1.0, 0.72], [0.72, 0.72, 1.0], [1.0, 1.0, 0.72],
        [1.0, 0.72, 1.0], [0.72, 1.0, 1.0], [1.0, 0.86, 0.72], [0.86, 1.0, 0.72],
        [0.72, 0.86, 1.0], [1.0, 0.72, 0.86], [0.86, 0.72, 1.0], [1.0, 1.0, 1.0],
    ]
    /// Muted colours of clothes and cars.
    static let muted: [[Float]] = [
        [0.12, 0.13, 0.18], [0.20, 0.22, 0.35], [0.55, 0.48, 0.38], [0.35, 0.35, 0.36],
        [0.70, 0.70, 0.72], [0.60, 0.12, 0.12], [0.08, 0.08, 0.08], [0.85, 0.85, 0.85],
        [0.30, 0.40, 0.28], [0.45, 0.28, 0.20],
    ]

    /// The objects for `config` (already sanitised), drawn from `rng`.
    static func plan(_ config: SceneConfig, rng: inout SplitMix64) -> [SceneObject] {
        let n = config.frameCount
        let maxCover = Int((config.objectCoverage * Double(n) + 1e-9).rounded(.down))
        let colourCap = config.backgroundIsLargestCluster ? min(maxCover, n - maxCover - 1) : maxCover
        guard config.objectCount > 0, maxCover > 0, colourCap > 0 else { return [] }
        let palette = config.colourfulObjects ? vivid : muted
        let p = palette.count
        let W = Double(config.width), H = Double(config.height)
        let gw = (config.width + cellSize - 1) / cellSize, gh = (config.height + cellSize - 1) / cellSize
        var total = [UInt16](repeating: 0, count: gw * gh)
        // Colour indices: the palette's, then (busy spots) the light ones.
        let colours = p + light.count
        var perColour = config.backgroundIsLargestCluster ? [UInt16](repeating: 0, count: gw * gh * colours) : []
        var mine = [UInt16](repeating: 0, count: gw * gh)
        var touched: [Int] = []
        var objects: [SceneObject] = []
        let attempts = config.objectCount * 12

        /// Adds the footprints of `group` to the counts when every cell stays
        /// within the limits; returns whether it did.
        func tryPlace(_ group: [SceneObject]) -> Bool {
            var extraColour: [Int: Int] = [:]
            for object in group {
                for f in object.visibleFrames {
                    for c in cells(object.bounds(frame: f)) {
                        if mine[c] == 0 { touched.append(c) }
                        mine[c] &+= 1
                        if !perColour.isEmpty { extraColour[c * colours + object.colourIndex, default: 0] += 1 }
                    }
                }
            }
            defer {
                for c in touched { mine[c] = 0 }
                touched.removeAll(keepingCapacity: true)
            }
            guard !touched.isEmpty else { return false }
            for c in touched where Int(total[c]) + Int(mine[c]) > maxCover { return false }
            for (k, v) in extraColour where Int(perColour[k]) + v > colourCap { return false }
            for c in touched { total[c] += mine[c] }
            for (k, v) in extraColour { perColour[k] += UInt16(v) }
            return true
        }

        /// The coverage cells under `b` grown by `margin`.
        func cells(_ b: (minX: Double, minY: Double, maxX: Double, maxY: Double)) -> [Int] {
            let cx0 = max(0, Int(((b.minX - margin) / Double(cellSize)).rounded(.down)))
            let cy0 = max(0, Int(((b.minY - margin) / Double(cellSize)).rounded(.down)))
            let cx1 = min(gw - 1, Int(((b.maxX + margin) / Double(cellSize)).rounded(.down)))
            let cy1 = min(gh - 1, Int(((b.maxY + margin) / Double(cellSize)).rounded(.down)))
            guard cx0 <= cx1, cy0 <= cy1 else { return [] }
            return (cy0...cy1).flatMap { cy in (cx0...cx1).map { cy * gw + $0 } }
        }


        // Busy spots (crowd scenes): a parked object in each of `maxCover`
        // frames at the same place, each of a different colour, so there the
        // objects outnumber the background (median fails) while no single
        // colour does (mode still finds the background).
        if config.backgroundIsLargestCluster && maxCover * 2 > n && light.count >= maxCover {
            let spots = max(1, config.objectCount / 8)
            for _ in 0..<spots {
                let size = H * rng.uniform(config.objectSize.lowerBound, config.objectSize.upperBound)
                let hw = max(1.5, size * rng.uniform(0.4, 0.6)), hh = max(1.5, size / 2)
                let x = W * rng.uniform(0.1, 0.9), y = H * rng.uniform(0.72, 0.9)   // on the road
                var frames = Array(0..<n)
                for i in stride(from: n - 1, to: 0, by: -1) { frames.swapAt(i, rng.below(i + 1)) }
                let firstColour = rng.below(light.count)
                let group = frames.prefix(maxCover).enumerated().map { k, f -> SceneObject in
                    let li = (firstColour + k) % light.count
                    return SceneObject(startX: x, startY: y, velocityX: 0, velocityY: 0,
                                       halfWidth: hw, halfHeight: hh, cornerRadius: min(hw, hh) * 0.3,
                                       isEllipse: false, colour: light[li], colourIndex: p + li,
                                       visibleFrames: f...f)
                }
                if tryPlace(group) { objects.append(contentsOf: group) }
            }
        }

        for _ in 0..<attempts where objects.count < config.objectCount {
            let size = H * rng.uniform(config.objectSize.lowerBound, config.objectSize.upperBound)
            var hw: Double, hh: Double, radius: Double, ellipse = false
            let kind = rng.unit()
            if kind < 0.55 {            // pedestrian: a tall pill
                hh = size / 2; hw = hh * rng.uniform(0.3, 0.42); radius = hw
            } else if kind < 0.85 {     // car: a wide rounded box
                hw = size / 2; hh = hw * rng.uniform(0.38, 0.5); radius = hh * 0.35
            } else {                    // ball or sign: an ellipse
                hh = size / 2 * rng.uniform(0.5, 0.8); hw = hh * rng.uniform(0.8, 1.25)
                radius = 0; ellipse = true
            }
            hw = max(hw, 1.5); hh = max(hh, 1.5)
            let y = H * rng.uniform(0.3, 0.95)
            let x = W * rng.uniform(-0.1, 1.1)
            let speed = 2 * hw * rng.uniform(0.5, 1.2)
            let vx = rng.unit() < 0.5 ? -speed : speed
            let vy = hh * rng.uniform(-0.05, 0.05)
            var first = 0, last = n - 1
            if rng.unit() < 0.5, n > 1 {
                first = rng.below(n)
                last = first + rng.below(n - first)
            }
            let ci = rng.below(p)
            let object = SceneObject(startX: x, startY: y, velocityX: vx, velocityY: vy,
                                     halfWidth: hw, halfHeight: hh, cornerRadius: radius,
                                     isEllipse: ellipse, colour: palette[ci], colourIndex: ci,
                                     visibleFrames: first...last)
            if tryPlace([object]) { objects.append(object) }
        }
        return objects
    }
}
