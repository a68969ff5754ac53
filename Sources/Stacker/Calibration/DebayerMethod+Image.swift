import Registration

extension DebayerMethod {
    /// The one-channel CFA `mosaic` (of `pattern` at its top-left pixel) as
    /// R, G, B planes of the same size, by this method; what the pipeline
    /// does to each calibrated, white-balanced mosaic (`--debayer`).
    public func image(from mosaic: Plane, pattern: BayerPattern) -> Image {
        Debayer.image(mosaic, pattern: pattern, method: self)
    }
}
