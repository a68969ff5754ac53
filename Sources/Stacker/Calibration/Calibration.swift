import Registration

/// Master calibration frames and their application to a light:
///
///     light′ = (light − offset) / flat,  then hot/cold pixel repair
///
/// where `offset` is the master dark when it includes the bias (raw darks
/// do), the dark plus the bias when the dark is already bias-subtracted,
/// the bias alone when there is no dark, and 0 when there is neither. The
/// flat is the master flat minus the bias (when given), divided by its mean
/// per channel, so it is 1 on average and the light keeps its level; flat
/// values below `minimumFlat` count as `minimumFlat`, so dead corners or a
/// dust shadow cannot blow up to infinity.
///
/// On a CFA mosaic (one channel holding R, G and B samples) the flat is
/// divided by the mean of each of the four positions of the 2 × 2 pattern
/// on its own, as Siril's "equalize CFA" does: the flat then carries only
/// the optics' shading, not the colour of the flat-field lamp, and the
/// lights keep their own colour balance. The pattern itself need not be
/// known, since each position holds one colour whatever the pattern is.
///
/// Darks are not scaled by exposure time: they must match the lights'
/// exposure (and temperature), as they usually do.
public struct Calibration: Sendable {
    /// The master bias, if any.
    public let bias: Image?
    /// The master dark, if any (as built: raw darks include the bias).
    public let dark: Image?
    /// The normalised master flat (mean 1 per channel, or per position of
    /// the 2 × 2 pattern on a mosaic), if any.
    public let flat: Image?
    /// Whether the dark already contains the bias (see the type's comment).
    public let darkIncludesBias: Bool
    /// Hot and cold pixels to repair, when cosmetic correction is on.
    public let defects: DefectMap?
    /// The per-pixel offset subtracted from each light (dark and/or bias), if any.
    private let offset: Image?

    /// The channel count of the masters (a CFA mosaic's masters are
    /// mosaics: 1), or nil when there is no master at all.
    public var channels: Int? { (bias ?? dark ?? flat)?.channels }

    /// The smallest normalised flat value divided by.
    public static let minimumFlat: Float = 0.05

    /// Calibration from master frames of the lights' size.
    /// - Parameters:
    ///   - flat: the master flat as built (not yet bias-subtracted or normalised).
    ///   - cosmeticSigma: find hot/cold pixels in the dark at this many σ;
    ///     nil for no cosmetic correction (which needs a dark).
    ///   - mosaic: whether the lights are one-channel CFA mosaics, whose
    ///     flat is normalised per CFA position (see the type's comment).
    public init(bias: Image?, dark: Image?, flat: Image?, cosmeticSigma: Double?, mosaic: Bool = false) {
        self.bias = bias
        self.dark = dark
        if let dark, let bias {
            // A raw dark sits at or above the bias pedestal; a bias-subtracted
            // one near zero (dark current only).
            let darkLevel = RobustStatistics.of(dark.luma).median
            let biasLevel = RobustStatistics.of(bias.luma).median
            darkIncludesBias = darkLevel >= 0.5 * biasLevel
        } else {
            darkIncludesBias = dark != nil
        }
        switch (dark, bias) {
        case (let d?, let b?) where !darkIncludesBias: offset = Self.combine(d, b, +)
        case (let d?, _): offset = d
        case (nil, let b?): offset = b
        case (nil, nil): offset = nil
        }
        self.flat = flat.map { Self.normalisedFlat($0, bias: bias, mosaic: mosaic) }
        if let sigma = cosmeticSigma, let dark {
            // Defects show in the dark itself; subtracting a bias only lowers
            // the level, so the dark as given is searched.
            let map = DefectMap(dark: dark, sigma: sigma)
            defects = map.count > 0 ? map : nil
        } else {
            defects = nil
        }
    }

    /// Loads (or builds, from lists of raw frames) the masters named in
    /// `options` for lights of `width × height × channels` (`mosaic`: the
    /// lights are CFA mosaics); nil when no calibration frame is given.
    /// - Throws: `StackerError` naming a calibration file that cannot be used.
    public static func load(_ options: CalibrationOptions, width: Int, height: Int, channels: Int,
                            maxPixels: Int, memoryLimit: Int, temporaryDirectory: some FilePathConvertible,
                            threads: Int, mosaic: Bool = false) throws -> Calibration? {
        if options.cosmetic && options.dark.isEmpty {
            throw StackerError.invalidInput(path: "", reason: "--cosmetic needs dark frames (--dark), where hot pixels are found")
        }
        guard !options.isEmpty else { return nil }
        func master(_ paths: [FilePath], _ role: String) throws -> Image? {
            guard !paths.isEmpty else { return nil }
            return try MasterFrame.build(paths: paths, role: role, kernel: options.masterKernel,
                                         width: width, height: height, channels: channels, maxPixels: maxPixels,
                                         memoryLimit: memoryLimit, temporaryDirectory: temporaryDirectory.filePath,
                                         threads: threads)
        }
        return Calibration(bias: try master(options.bias, "bias"), dark: try master(options.dark, "dark"),
                           flat: try master(options.flat, "flat"),
                           cosmeticSigma: options.cosmetic ? options.cosmeticSigma : nil, mosaic: mosaic)
    }

    /// Calibrates one light in place (same size and channels as the masters).
    public func apply(to image: inout Image) {
        for c in 0..<image.channels {
            image.planes[c].pixels.withUnsafeMutableBufferPointer { px in
                if let offset {
                    offset.planes[c].pixels.withUnsafeBufferPointer { o in
                        for i in 0..<px.count { px[i] -= o[i] }
                    }
                }
                if let flat {
                    flat.planes[c].pixels.withUnsafeBufferPointer { f in
                        for i in 0..<px.count { px[i] /= f[i] }
                    }
                }
            }
        }
        defects?.repair(&image)
    }

    /// `flat − bias` divided by its mean per channel (a one-channel
    /// `mosaic`: per position of the 2 × 2 CFA pattern), floored at `minimumFlat`.
    static func normalisedFlat(_ flat: Image, bias: Image?, mosaic: Bool = false) -> Image {
        var out = bias.map { combine(flat, $0, -) } ?? flat
        let (w, h) = (out.width, out.height)
        // Each pixel's class: its position in the 2 × 2 pattern, or 0.
        let positions = mosaic && out.channels == 1 ? 4 : 1
        for c in 0..<out.channels {
            out.planes[c].pixels.withUnsafeMutableBufferPointer { p in
                var sum = [Double](repeating: 0, count: positions), count = sum
                for y in 0..<h {
                    for x in 0..<w {
                        let k = positions == 1 ? 0 : (y & 1) << 1 | (x & 1)
                        sum[k] += Double(p[y * w + x])
                        count[k] += 1
                    }
                }
                let scale = (0..<positions).map { k -> Float in
                    let mean = sum[k] / max(1, count[k])
                    return mean > 0 ? Float(1 / mean) : 1
                }
                for y in 0..<h {
                    for x in 0..<w {
                        let k = positions == 1 ? 0 : (y & 1) << 1 | (x & 1)
                        p[y * w + x] = max(p[y * w + x] * scale[k], minimumFlat)
                    }
                }
            }
        }
        return out
    }

    /// The sample-wise `op` of two images of the same size.
    private static func combine(_ a: Image, _ b: Image, _ op: (Float, Float) -> Float) -> Image {
        var out = a
        for c in 0..<out.channels {
            let other = b.planes[c].pixels
            out.planes[c].pixels.withUnsafeMutableBufferPointer { p in
                for i in 0..<p.count { p[i] = op(p[i], other[i]) }
            }
        }
        return out
    }
}
