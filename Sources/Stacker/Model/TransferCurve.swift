import Registration

/// How an output's sample values relate to light. Camera raws are stacked
/// in linear light (values proportional to the light the sensor caught);
/// displays expect values encoded with the sRGB transfer curve.
public enum TransferCurve: String, Sendable, CaseIterable {
    /// Values as stacked: proportional to light for a camera raw.
    case linear
    /// The sRGB curve (IEC 61966-2-1): 12.92 · v up to 0.0031308, else
    /// 1.055 · v^(1/2.4) − 0.055. Negative values keep the linear segment;
    /// values above 1 follow the power law.
    case srgb

    /// The curve for a stack written as `format` when none is asked for:
    /// sRGB for a linear-light stack (a camera raw reference) written as
    /// JPEG, PNG or HEIC, which viewers read as sRGB-encoded; linear for
    /// TIFF and FITS, and for every stack of frames that are already
    /// encoded for display (JPEG, PNG, HEIC, TIFF and FITS inputs are
    /// written with the values they have).
    public static func automatic(linearLight: Bool, format: ImageFormat) -> TransferCurve {
        guard linearLight else { return .linear }
        switch format {
        case .jpeg, .png, .heif: return .srgb
        case .tiff, .fits: return .linear
        }
    }

    /// `v` encoded with this curve.
    @inline(__always)
    public func encode(_ v: Float) -> Float {
        switch self {
        case .linear: return v
        case .srgb: return v <= 0.0031308 ? 12.92 * v : 1.055 * powf(v, 1 / 2.4) - 0.055
        }
    }

    /// `image` with every sample encoded with this curve.
    public func encode(_ image: Image) -> Image {
        guard self != .linear else { return image }
        var out = image
        for c in out.planes.indices {
            out.planes[c].pixels = out.planes[c].pixels.map(encode)
        }
        return out
    }
}

#if canImport(Glibc)
import Glibc
#endif
