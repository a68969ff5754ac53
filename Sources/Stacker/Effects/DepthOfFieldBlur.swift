internal import Registration

/// A depth-of-field blur: each pixel is averaged over a square window whose
/// radius it is given, and only pixels outside the sharp subject count in
/// the average (normalised convolution with weight 1 − mask), so the
/// subject's colours do not bleed into the blurred background around it (no
/// halo). The variable window is the separable box approximation of
/// `BoxFilter.variableMean`: two 1-D passes of prefix sums per plane,
/// whatever the radius.
enum DepthOfFieldBlur {
    /// `image` blurred with `radius[x, y]` pixels at each pixel, weighting
    /// each sample by `1 − subject`; where no weight falls in the window
    /// (inside a large subject) the pixel is kept.
    static func blurred(_ image: Image, radius: Plane, subject: Plane) -> Image {
        let weight = Plane(width: image.width, height: image.height, pixels: subject.pixels.map { 1 - $0 })
        let radii = BoxFilter.Radii(radius)
        let weightSum = BoxFilter.variableMean(weight, radii: radii)
        let planes = image.planes.map { plane -> Plane in
            let weighted = Plane(width: plane.width, height: plane.height,
                                 pixels: zip(plane.pixels, weight.pixels).map { $0 * $1 })
            var sum = BoxFilter.variableMean(weighted, radii: radii)
            for i in sum.pixels.indices {
                let w = weightSum.pixels[i]
                sum.pixels[i] = w > 1e-4 ? min(1, max(0, sum.pixels[i] / w)) : plane.pixels[i]
            }
            return sum
        }
        return Image(width: image.width, height: image.height, planes: planes)
    }
}
