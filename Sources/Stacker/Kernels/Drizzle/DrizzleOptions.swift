/// The shape of a drizzle drop (`--drizzle-kernel`).
public enum DrizzleKernel: String, Sendable, CaseIterable {
    /// A square drop of side `pixfrac` input pixels; each output pixel gets
    /// the drop's value weighted by the area they share (Fruchter & Hook
    /// 2002). Sharpest; with a small pixfrac and few frames, gaps.
    case square
    /// A Gaussian drop whose full width at half maximum is `pixfrac` input
    /// pixels, cut at 3 σ (at least one output pixel): smoother, fewer
    /// gaps, a little softer.
    case gaussian
}

/// What makes a stack a drizzle (`StackOptions.drizzle`): the finer grid's
/// scale, the drop size and its shape.
public struct DrizzleOptions: Sendable, Equatable {
    /// Output pixels per input pixel along each axis: 1.5, 2 or 3 (any
    /// value in 1…4 is accepted).
    public var scale: Double
    /// The drop's side (square) or FWHM (gaussian) in input pixels, in
    /// (0, 1]; default 1, as Siril's.
    public var pixfrac: Double
    /// The drop's shape (default `.square`).
    public var kernel: DrizzleKernel
    /// How samples are spread onto the finer grid (`--sr-merge`): drops
    /// (the default) or steered kernels; `pixfrac` and `kernel` shape the
    /// drops only.
    public var merge: SuperResolutionMerge

    /// Drizzle at `scale` with drops of `pixfrac` input pixels shaped by
    /// `kernel`, or with `merge` `.kernel`, steered kernels.
    public init(scale: Double = 2, pixfrac: Double = 1, kernel: DrizzleKernel = .square,
                merge: SuperResolutionMerge = .drizzle) {
        self.scale = scale
        self.pixfrac = pixfrac
        self.kernel = kernel
        self.merge = merge
    }

    /// Why these options cannot be used, or nil when they can.
    public var invalidReason: String? {
        guard scale.isFinite, scale >= 1, scale <= 4 else { return "--scale must be between 1 and 4, not \(scale)" }
        guard pixfrac.isFinite, pixfrac > 0, pixfrac <= 1 else { return "--pixfrac must be in (0, 1], not \(pixfrac)" }
        return nil
    }

    /// The output size for an input of `width` × `height`: each side times
    /// the scale, rounded down.
    public func outputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        (Int((Double(width) * scale).rounded(.down)), Int((Double(height) * scale).rounded(.down)))
    }
}
