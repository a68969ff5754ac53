public import Registration

/// A planar colour or grayscale image over one sample type: `Image` holds
/// `Float`s, `ByteImage` the 8-bit samples a frame keeps from decode to warp.
///
/// Values are linear in file values and scaled to 0…1 (an 8-bit file value
/// `v` is `v / 255`, a 16-bit one `v / 65535`; a `ByteImage` sample `v`
/// stands for `v / 255`); no gamma is removed. `planes` holds one plane per
/// channel: 1 (gray) or 3 (R, G, B), all of the same size. Coordinates
/// follow `Plane`: origin top-left, y down.
public struct PlanarImage<Sample: BitwiseCopyable & Sendable & Equatable & ExpressibleByIntegerLiteral>: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// One plane per channel (1 = gray, 3 = RGB).
    public var planes: [PixelPlane<Sample>]

    /// An image over existing planes, which must all be `width × height`.
    public init(width: Int, height: Int, planes: [PixelPlane<Sample>]) {
        precondition(!planes.isEmpty, "an image needs at least one plane")
        for p in planes {
            precondition(p.width == width && p.height == height,
                         "Plane \(p.width)×\(p.height) does not match image \(width)×\(height)")
        }
        self.width = width
        self.height = height
        self.planes = planes
    }

    /// An image of `channels` planes filled with `value`.
    public init(width: Int, height: Int, channels: Int, repeating value: Sample = 0) {
        self.init(width: width, height: height,
                  planes: Array(repeating: PixelPlane(width: width, height: height, repeating: value), count: channels))
    }

    /// Number of channels (1 or 3).
    public var channels: Int { planes.count }

    /// Number of pixels (`width * height`).
    public var pixelCount: Int { width * height }
}

/// Float samples, 0…1.
public typealias Image = PlanarImage<Float>

extension PlanarImage where Sample == Float {
    /// The luma plane (Rec. 601 weights on the file values) used for
    /// registration; the plane itself for a gray image.
    public var luma: Plane { luma(downsampledBy: 1).luma }

    /// `luma` and `luma.downsampled(by: factor)`, the same bits, made in one
    /// pass: each band of `factor` luma rows is shrunk while still in cache.
    public func luma(downsampledBy factor: Int) -> (luma: Plane, small: Plane) {
        guard planes.count >= 3 else { return (planes[0], planes[0].downsampled(by: factor)) }
        return Self.rec601Luma(planes[0].pixels, planes[1].pixels, planes[2].pixels, width: width, height: height,
                               downsampledBy: factor)
    }

    /// The Rec. 601 luma `0.299 r + 0.587 g + 0.114 b` of three planes of
    /// samples in the planes' units (`S.unit` is folded into the weights, so
    /// 8-bit samples agree with their float image to float rounding), and
    /// its copy shrunk by `factor` (see `luma(downsampledBy:)`).
    static func rec601Luma<S: PlaneSample>(_ r: [S], _ g: [S], _ b: [S], width w: Int, height: Int,
                                           downsampledBy factor: Int) -> (luma: Plane, small: Plane) {
        let wr: Float = 0.299 * S.unit, wg: Float = 0.587 * S.unit, wb: Float = 0.114 * S.unit
        let made = r.withUnsafeBufferPointer { r in
            g.withUnsafeBufferPointer { g in
                b.withUnsafeBufferPointer { b in
                    Plane.producing(width: w, height: height, downsampledBy: factor) { rows, o in
                        guard let r = r.baseAddress, let g = g.baseAddress, let b = b.baseAddress else { return }
                        let start = rows.lowerBound * w
                        // Offsets taken once: `start + i` in the loop is overflow-checked and stops vectorisation.
                        let (r0, g0, b0) = (r + start, g + start, b + start)
                        for i in 0..<(rows.count * w) {
                            o[i] = wr * r0[i].float + wg * g0[i].float + wb * b0[i].float
                        }
                    }
                }
            }
        }
        return (made.full, made.small)
    }
}

extension Image {
    /// `left` and `right` side by side on one canvas, `gap` pixels apart
    /// (filled with `background`), top-aligned; a grey image beside a colour
    /// one is repeated into three channels. For before/after pictures.
    public static func sideBySide(_ left: Image, _ right: Image, gap: Int = 16, background: Float = 1) -> Image {
        let channels = max(left.channels, right.channels)
        let width = left.width + gap + right.width, height = max(left.height, right.height)
        var canvas = Image(width: width, height: height, channels: channels, repeating: background)
        for (image, x0) in [(left, 0), (right, left.width + gap)] {
            for c in 0..<channels {
                let source = image.planes[min(c, image.channels - 1)].pixels
                for y in 0..<image.height {
                    let row = y * width + x0
                    canvas.planes[c].pixels.replaceSubrange(row..<row + image.width,
                                                            with: source[y * image.width..<(y + 1) * image.width])
                }
            }
        }
        return canvas
    }
}
