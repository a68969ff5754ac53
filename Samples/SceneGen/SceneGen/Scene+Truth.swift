public import Registration

extension Scene {
    /// Each frame's true transform (frame → reference): its shift.
    public var trueTransforms: [Transform] { shifts.map { .translation(dx: $0.dx, dy: $0.dy) } }

    /// Per reference pixel, in how many frames something transient (an
    /// object, the trail, a hot pixel) touches it: each frame's
    /// `objectMasks` carried onto the reference grid by its true shift.
    public var transientCoverage: Plane {
        let w = groundTruth.width, h = groundTruth.height
        var count = Plane(width: w, height: h)
        for (mask, transform) in zip(objectMasks, trueTransforms) {
            let onReference = Warper.warp([mask], by: transform, width: w, height: h, interpolation: .bicubic).planes[0]
            for k in 0..<count.count where onReference.pixels[k] > 0.05 { count.pixels[k] += 1 }
        }
        return count
    }

    /// 1 on the reference grid where anything transient passed in any frame,
    /// else 0: where a stack must show the truth and not a ghost
    /// (`ImageMetrics.ghostResidual`).
    public var transientMask: Plane {
        var mask = transientCoverage
        for k in 0..<mask.count { mask.pixels[k] = mask.pixels[k] > 0 ? 1 : 0 }
        return mask
    }
}
