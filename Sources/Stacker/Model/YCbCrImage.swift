public import Registration

/// A colour image as a JPEG stores it: a full-resolution Y (luma) plane and
/// Cb, Cr planes shrunk by `chromaFactor` (1 for 4:4:4, 2 for 4:2:0), all
/// 8-bit (`v` stands for `v / 255`). The average, median and sigma-clip
/// stack JPEG frames in this form: TurboJPEG skips its colour conversion
/// and chroma upsampling, and 4:2:0 chroma costs a quarter of a channel to
/// warp and stack.
///
/// Chroma samples are centred between the luma samples they cover (JFIF):
/// chroma pixel `(i, j)` sits at luma coordinate `(f·i + (f−1)/2, f·j +
/// (f−1)/2)`.
public struct YCbCrImage: Sendable, Equatable {
    /// The Y plane, `width × height`.
    public var luma: BytePlane
    /// The Cb and Cr planes, `width / chromaFactor × height / chromaFactor`.
    public var chroma: [BytePlane]
    /// 1 (4:4:4) or 2 (4:2:0).
    public let chromaFactor: Int

    /// An image over existing planes; the chroma planes must be the luma's
    /// size divided by `chromaFactor`, which must divide it.
    public init(luma: BytePlane, chroma: [BytePlane], chromaFactor: Int) {
        precondition(chromaFactor == 1 || chromaFactor == 2, "chroma factor \(chromaFactor) is not 1 or 2")
        precondition(chroma.count == 2, "YCbCrImage needs Cb and Cr planes")
        precondition(luma.width % chromaFactor == 0 && luma.height % chromaFactor == 0,
                     "luma \(luma.width)×\(luma.height) is not a multiple of \(chromaFactor)")
        for c in chroma {
            precondition(c.width == luma.width / chromaFactor && c.height == luma.height / chromaFactor,
                         "chroma \(c.width)×\(c.height) does not match luma \(luma.width)×\(luma.height) / \(chromaFactor)")
        }
        self.luma = luma
        self.chroma = chroma
        self.chromaFactor = chromaFactor
    }

    /// Width in pixels.
    public var width: Int { luma.width }
    /// Height in pixels.
    public var height: Int { luma.height }

    /// The image in RGB floats, chroma upsampled as TurboJPEG's RGB
    /// decode does (bilinear), so a frame reads the same in either form.
    public var rgb: Image {
        YCbCr.rgb(luma: luma.floats, cb: chroma[0].floats, cr: chroma[1].floats, factor: chromaFactor,
                  upsampling: .bilinear)
    }
}
