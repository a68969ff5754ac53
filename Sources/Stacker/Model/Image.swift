public import Registration

/// A planar colour or grayscale image of `Float` samples.
///
/// Values are linear in file values and scaled to 0…1 (an 8-bit file value
/// `v` is `v / 255`, a 16-bit one `v / 65535`); no gamma is removed.
/// `planes` holds one `Plane` per channel: 1 (gray) or 3 (R, G, B), all of
/// the same size. Coordinates follow `Plane`: origin top-left, y down.
public struct Image: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// One plane per channel (1 = gray, 3 = RGB).
    public var planes: [Plane]

    /// An image over existing planes, which must all be `width × height`.
    public init(width: Int, height: Int, planes: [Plane]) {
        precondition(!planes.isEmpty, "Image needs at least one plane")
        for p in planes {
            precondition(p.width == width && p.height == height,
                         "Plane \(p.width)×\(p.height) does not match image \(width)×\(height)")
        }
        self.width = width
        self.height = height
        self.planes = planes
    }

    /// An image of `channels` planes filled with `value`.
    public init(width: Int, height: Int, channels: Int, repeating value: Float = 0) {
        self.init(width: width, height: height,
                  planes: Array(repeating: Plane(width: width, height: height, repeating: value),
                                count: channels))
    }

    /// Number of channels (1 or 3).
    public var channels: Int { planes.count }

    /// Number of pixels (`width * height`).
    public var pixelCount: Int { width * height }

    /// The luma plane (Rec. 601 weights on the file values) used for
    /// registration; the plane itself for a gray image.
    public var luma: Plane { luma(downsampledBy: 1).luma }

    /// `luma` and `luma.downsampled(by: factor)`, the same bits, made in one
    /// pass: each band of `factor` luma rows is shrunk while still in cache.
    public func luma(downsampledBy factor: Int) -> (luma: Plane, small: Plane) {
        guard planes.count >= 3 else { return (planes[0], planes[0].downsampled(by: factor)) }
        let w = width
        let made = planes[0].pixels.withUnsafeBufferPointer { r in
            planes[1].pixels.withUnsafeBufferPointer { g in
                planes[2].pixels.withUnsafeBufferPointer { b in
                    Plane.producing(width: w, height: height, downsampledBy: factor) { rows, o in
                        guard let r = r.baseAddress, let g = g.baseAddress, let b = b.baseAddress else { return }
                        let start = rows.lowerBound * w
                        for i in 0..<(rows.count * w) {
                            o[i] = 0.299 * r[start + i] + 0.587 * g[start + i] + 0.114 * b[start + i]
                        }
                    }
                }
            }
        }
        return (made.full, made.small)
    }
}
