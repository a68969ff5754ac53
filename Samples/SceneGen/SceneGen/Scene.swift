public import Registration
public import Stacker

/// A frame's true camera shift, in pixels.
///
/// Convention (as in the report and `Transform`): the pixel at `(x, y)` in the
/// frame shows what the reference frame shows at `(x + dx, y + dy)`.
public struct FrameShift: Sendable, Equatable, Hashable {
    /// Horizontal shift in pixels (x right).
    public var dx: Double
    /// Vertical shift in pixels (y down).
    public var dy: Double

    /// A shift of `(dx, dy)` pixels.
    public init(dx: Double, dy: Double) {
        self.dx = dx
        self.dy = dy
    }
}

/// A pixel position on the sensor (the frame's own grid), e.g. a hot pixel.
public struct SensorPixel: Sendable, Equatable, Hashable {
    /// Column.
    public var x: Int
    /// Row.
    public var y: Int

    /// The pixel at column `x`, row `y`.
    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }
}

/// A synthetic burst and everything known about it.
public struct Scene: Sendable {
    /// The (clamped) config the scene was rendered from.
    public var config: SceneConfig
    /// The frames, `config.frameCount` of them; frame 0 is the reference.
    public var frames: [Image]
    /// The static scene on the reference grid: no noise, no objects, no trail,
    /// no hot pixels. Exactly what frame 0 would be without them.
    public var groundTruth: Image
    /// True shift of each frame (frame 0 is `(0, 0)`).
    public var shifts: [FrameShift]
    /// Per frame, on that frame's own grid: 1 where an object, the trail or a
    /// hot pixel touches the pixel (any coverage at all), else 0.
    public var objectMasks: [Plane]
    /// The moving objects (in reference coordinates).
    public var objects: [SceneObject]
    /// Hot pixels, at these sensor positions in every frame.
    public var hotPixels: [SensorPixel]
    /// The frame holding the satellite trail, or nil.
    public var trailFrame: Int?

    /// Creates a scene record (normally made by `SceneGenerator.render`).
    public init(config: SceneConfig, frames: [Image], groundTruth: Image, shifts: [FrameShift],
                objectMasks: [Plane], objects: [SceneObject], hotPixels: [SensorPixel],
                trailFrame: Int?) {
        self.config = config
        self.frames = frames
        self.groundTruth = groundTruth
        self.shifts = shifts
        self.objectMasks = objectMasks
        self.objects = objects
        self.hotPixels = hotPixels
        self.trailFrame = trailFrame
    }
}

/// An opaque moving object (a pedestrian, a car, a ball) with a flat colour.
///
/// Positions are in reference coordinates; the object moves linearly,
/// `centre(frame: i) = start + i · velocity`, and is drawn only on the frames
/// in `visibleFrames`. Its edge is soft over 1 px.
public struct SceneObject: Sendable, Equatable {
    /// Centre on frame 0, reference coordinates (px).
    public var startX: Double
    /// Centre on frame 0, reference coordinates (px).
    public var startY: Double
    /// Motion per frame (px / frame).
    public var velocityX: Double
    /// Motion per frame (px / frame).
    public var velocityY: Double
    /// Half the width (px).
    public var halfWidth: Double
    /// Half the height (px).
    public var halfHeight: Double
    /// Corner radius of a rounded rectangle (px); ignored for an ellipse.
    public var cornerRadius: Double
    /// True for an ellipse, false for a rounded rectangle.
    public var isEllipse: Bool
    /// Linear RGB colour, 0…1.
    public var colour: [Float]
    /// Index of the colour in the generator's palette; objects sharing an
    /// index look the same.
    public var colourIndex: Int
    /// The frames on which the object is drawn.
    public var visibleFrames: ClosedRange<Int>

    /// Creates an object.
    public init(startX: Double, startY: Double, velocityX: Double, velocityY: Double,
                halfWidth: Double, halfHeight: Double, cornerRadius: Double, isEllipse: Bool,
                colour: [Float], colourIndex: Int, visibleFrames: ClosedRange<Int>) {
        self.startX = startX
        self.startY = startY
        self.velocityX = velocityX
        self.velocityY = velocityY
        self.halfWidth = halfWidth
        self.halfHeight = halfHeight
        self.cornerRadius = cornerRadius
        self.isEllipse = isEllipse
        self.colour = colour
        self.colourIndex = colourIndex
        self.visibleFrames = visibleFrames
    }

    /// The centre on `frame`, reference coordinates.
    public func centre(frame: Int) -> (x: Double, y: Double) {
        (startX + Double(frame) * velocityX, startY + Double(frame) * velocityY)
    }

    /// Signed distance (px, negative inside) from the reference point
    /// `(x, y)` to the object's outline on `frame` (ignores visibility).
    /// Exact for the rounded rectangle, a close approximation for the ellipse.
    public func signedDistance(x: Double, y: Double, frame: Int) -> Double {
        let c = centre(frame: frame)
        let px = abs(x - c.x), py = abs(y - c.y)
        if isEllipse {
            let a = halfWidth, b = halfHeight
            let k = ((px / a) * (px / a) + (py / b) * (py / b)).squareRoot()
            // First-order distance: (k - 1) / |∇k|.
            let gx = px / (a * a), gy = py / (b * b)
            let g = (gx * gx + gy * gy).squareRoot()
            return g > 1e-12 && k > 1e-12 ? (k - 1) * k / g : -min(a, b)
        }
        let r = min(cornerRadius, halfWidth, halfHeight)
        let qx = px - (halfWidth - r), qy = py - (halfHeight - r)
        let ox = max(qx, 0), oy = max(qy, 0)
        return (ox * ox + oy * oy).squareRoot() + min(max(qx, qy), 0) - r
    }

    /// Point coverage 0…1 at the reference point `(x, y)` on `frame`
    /// (0 when the object is not visible on that frame). Soft over 1 px:
    /// 1 inside by ½ px, 0 outside by ½ px.
    public func alpha(x: Double, y: Double, frame: Int) -> Double {
        guard visibleFrames.contains(frame) else { return 0 }
        return min(max(0.5 - signedDistance(x: x, y: y, frame: frame), 0), 1)
    }

    /// True when the object is visible on `frame` and comes within `margin`
    /// px of the reference point `(x, y)`.
    public func covers(x: Double, y: Double, frame: Int, margin: Double = 0.5) -> Bool {
        visibleFrames.contains(frame) && signedDistance(x: x, y: y, frame: frame) < margin
    }

    /// Bounding box on `frame` in reference coordinates, including the soft edge.
    public func bounds(frame: Int) -> (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        let c = centre(frame: frame)
        let ex = halfWidth + 0.5, ey = halfHeight + 0.5
        return (c.x - ex, c.y - ey, c.x + ex, c.y + ey)
    }
}
