/// What `PortraitEffect` does to a photo: the effect, the mask it goes
/// through, and how that mask is made. The defaults are the tutorials'.
public struct EffectOptions: Sendable {
    /// Where the mask is centred.
    public enum Focus: Sendable, Equatable {
        /// The nearest large object (`EffectMask.autoFocus`).
        case auto
        /// A nearness, 0…1 (1 = nearest).
        case value(Float)
    }

    /// The effect to apply.
    public var effect: DepthEffect = .blur
    /// The focus; `.auto` by default, so a batch needs no per-file number.
    public var focus: Focus = .auto
    /// Band-pass or high-pass.
    public var shape: EffectMask.Shape = .band
    /// The band's width in nearness (flat top of the band-pass mask).
    public var width: Float = 0.1
    /// How fast the mask falls outside the band: to 0 over 1/slope.
    public var slope: Float = 4
    /// Apply the effect to the subject instead of the rest.
    public var invert = false
    /// Use this portrait matte as the mask instead of depth.
    public var matte: Matte?
    /// Strengths, radius, colours of the effects.
    public var settings = DepthEffect.Settings()
    /// Refuse photos and depth images with more pixels than this.
    public var maxPixels = ImageFile.defaultMaxPixels

    public init() {}
}
