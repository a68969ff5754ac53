internal import Registration

/// The comic look of `DepthEffect.comic`: colours posterised to a few
/// levels per channel, and black ink where the luma has a strong edge.
enum ComicStyle {
    /// `image` posterised to `levels` per channel (each sample to the
    /// nearest of `levels` evenly spaced values) and inked black where the
    /// Sobel gradient of its luma (divided by 4, so a step of 1 gives 1)
    /// exceeds `inkThreshold`.
    static func rendered(_ image: Image, levels: Int, inkThreshold: Float) -> Image {
        let steps = Float(max(2, levels) - 1)
        let luma = image.luma
        let w = image.width, h = image.height
        var ink = [Bool](repeating: false, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                func l(_ dx: Int, _ dy: Int) -> Float {
                    luma.pixels[min(h - 1, max(0, y + dy)) * w + min(w - 1, max(0, x + dx))]
                }
                let gx = (l(1, -1) + 2 * l(1, 0) + l(1, 1)) - (l(-1, -1) + 2 * l(-1, 0) + l(-1, 1))
                let gy = (l(-1, 1) + 2 * l(0, 1) + l(1, 1)) - (l(-1, -1) + 2 * l(0, -1) + l(1, -1))
                ink[y * w + x] = (gx * gx + gy * gy).squareRoot() / 4 > inkThreshold
            }
        }
        var out = image
        for c in 0..<image.channels {
            out.planes[c].pixels = image.planes[c].pixels.indices.map { i in
                ink[i] ? 0 : (image.planes[c].pixels[i] * steps).rounded() / steps
            }
        }
        return out
    }
}
