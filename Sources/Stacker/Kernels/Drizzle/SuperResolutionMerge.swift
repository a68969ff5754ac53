/// How a super-resolution stack spreads each sample onto the finer grid
/// (`--sr-merge`).
public enum SuperResolutionMerge: String, Sendable, CaseIterable {
    /// Drizzle (Fruchter & Hook 2002): a drop of `pixfrac` input pixels,
    /// shaped by `DrizzleKernel`, the same everywhere.
    case drizzle
    /// Kernel regression in the manner of Wronski et al. 2019: each sample
    /// reaches the output pixels within 1.5 input pixels with an
    /// anisotropic Gaussian weight whose covariance follows the local
    /// structure of the 1× stack (`SteeredKernelField`): long and thin
    /// along an edge, wide on flat ground, small on fine isotropic detail.
    case kernel
}
