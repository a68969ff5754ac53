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
        var perColour = config.backgroundIsLargestCluster ? [UInt16](repeating: 0, count: gw * gh * p) : []
        var mine = [UInt16](repeating: 0, count: gw * gh)
        var touched: [Int] = []
        var objects: [SceneObject] = []
        let attempts = config.objectCount * 12

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
            // Footprint counts of this candidate.
            for f in first...last {
                let b = object.bounds(frame: f)
                let cx0 = max(0, Int(((b.minX - margin) / Double(cellSize)).rounded(.down)))
                let cy0 = max(0, Int(((b.minY - margin) / Double(cellSize)).rounded(.down)))
                let cx1 = min(gw - 1, Int(((b.maxX + margin) / Double(cellSize)).rounded(.down)))
                let cy1 = min(gh - 1, Int(((b.maxY + margin) / Double(cellSize)).rounded(.down)))
                guard cx0 <= cx1, cy0 <= cy1 else { continue }
                for cy in cy0...cy1 {
                    for cx in cx0...cx1 {
                        let c = cy * gw + cx
                        if mine[c] == 0 { touched.append(c) }
                        mine[c] &+= 1
                    }
                }
            }
            var fits = !touched.isEmpty
            for c in touched where fits {
                if Int(total[c]) + Int(mine[c]) > maxCover { fits = false }
                if !perColour.isEmpty, Int(perColour[c * p + ci]) + Int(mine[c]) > colourCap { fits = false }
            }
            if fits {
                for c in touched {
                    total[c] += mine[c]
                    if !perColour.isEmpty { perColour[c * p + ci] += mine[c] }
                }
                objects.append(object)
            }
            for c in touched { mine[c] = 0 }
            touched.removeAll(keepingCapacity: true)
        }
        return objects
    }
}
