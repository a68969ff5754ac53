internal import CLCMS2
import Registration

/// Colour management through Little CMS 2. The only file that imports
/// `CLCMS2`; it calls only the `stack_lcms_…` functions of
/// `CLCMS2/shim.h`. No C type leaves it.
enum LittleCMS {
    /// lcms2's error log silenced once, before the first profile is opened
    /// (errors come back as nil and are named by the caller).
    private static let silenced: Void = stack_lcms_silence()

    /// True when lcms2 opens `profile` and its colour space is RGB.
    static func isRGBProfile(_ profile: [UInt8]) -> Bool {
        _ = silenced
        guard let size = UInt32(exactly: profile.count) else { return false }
        return profile.withUnsafeBytes { stack_lcms_is_rgb_profile($0.baseAddress, size) } == 1
    }

    /// The bytes of an RGB matrix/shaper profile (ICC v4) with the given
    /// white point, primaries and transfer curve, or nil when lcms2 cannot
    /// build it (e.g. collinear primaries).
    static func rgbProfile(_ c: Chromaticities, transfer: ToneCurve) -> [UInt8]? {
        _ = silenced
        let xy = [c.white.x, c.white.y, c.red.x, c.red.y, c.green.x, c.green.y, c.blue.x, c.blue.y]
        var size: UInt32 = 0
        let parameters: [Double], parametric: Bool
        switch transfer {
        // IEC 61966-2-1: Y = ((X + 0.055) / 1.055)^2.4 from 0.04045, X / 12.92 below.
        case .sRGB: (parameters, parametric) = ([2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045], true)
        // ITU-R BT.709 (and BT.2020) inverted: Y = ((X + 0.099) / 1.099)^(1/0.45) from 0.081, X / 4.5 below.
        case .rec709: (parameters, parametric) = ([1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081], true)
        case .gamma(let g): (parameters, parametric) = ([g, 0, 0, 0, 0], false)
        }
        guard let out = xy.withUnsafeBufferPointer({ points in
            parameters.withUnsafeBufferPointer { stack_lcms_rgb_profile(points.baseAddress, $0.baseAddress, parametric ? 1 : 0, &size) }
        }) else { return nil }
        defer { stack_lcms_free(out) }
        var bytes = [UInt8](UnsafeBufferPointer(start: out, count: Int(size)))
        // lcms2 stamps the header with the time of creation (bytes 24…35);
        // a fixed date (2000-01-01 00:00:00) makes the same inputs give the
        // same bytes, which is how profiles are compared.
        if bytes.count >= 36 { bytes.replaceSubrange(24..<36, with: [0x07, 0xD0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0]) }
        return bytes
    }

    /// A relative-colorimetric transform between two profiles (nil: sRGB),
    /// on three planes at once; the handle is freed with the value. Used by
    /// one thread at a time.
    final class Transform {
        private let handle: UnsafeMutableRawPointer
        private let floats: Bool

        /// Nil when a profile cannot be opened or lcms2 cannot join them.
        /// `floats` chooses float samples, else 8-bit ones.
        init?(from source: [UInt8]?, to target: [UInt8]?, floats: Bool) {
            _ = silenced
            guard UInt32(exactly: source?.count ?? 0) != nil, UInt32(exactly: target?.count ?? 0) != nil else { return nil }
            let made = LittleCMS.withOptionalBytes(source) { s, sn in
                LittleCMS.withOptionalBytes(target) { t, tn in
                    stack_lcms_transform_new(s, sn, t, tn, floats ? 1 : 0)
                }
            }
            guard let made else { return nil }
            handle = made
            self.floats = floats
        }

        deinit { stack_lcms_transform_free(handle) }

        /// Transforms the three planes of `planes` in place (float transform).
        func apply(_ planes: inout [Plane]) {
            precondition(floats, "an 8-bit transform takes byte planes")
            LittleCMS.withThreePlanes(&planes) { stack_lcms_apply_float(handle, $0, $1, $2, $3) }
        }

        /// Transforms the three planes of `planes` in place (8-bit transform).
        func apply(_ planes: inout [BytePlane]) {
            precondition(!floats, "a float transform takes float planes")
            LittleCMS.withThreePlanes(&planes) { stack_lcms_apply_u8(handle, $0, $1, $2, $3) }
        }
    }

    /// Calls `body` with the samples of the three planes of `planes` and
    /// their common count; the arrays are moved out while it runs, so each
    /// is uniquely held and nothing is copied.
    private static func withThreePlanes<S>(_ planes: inout [PixelPlane<S>],
                                           _ body: (UnsafeMutablePointer<S>?, UnsafeMutablePointer<S>?,
                                                    UnsafeMutablePointer<S>?, Int) -> Void) {
        precondition(planes.count == 3, "a colour transform takes three planes, not \(planes.count)")
        var (r, g, b) = (planes[0].pixels, planes[1].pixels, planes[2].pixels)
        precondition(g.count == r.count && b.count == r.count, "planes differ in size")
        for k in 0..<3 { planes[k].pixels = [] }
        r.withUnsafeMutableBufferPointer { rp in
            g.withUnsafeMutableBufferPointer { gp in
                b.withUnsafeMutableBufferPointer { bp in body(rp.baseAddress, gp.baseAddress, bp.baseAddress, rp.count) }
            }
        }
        (planes[0].pixels, planes[1].pixels, planes[2].pixels) = (r, g, b)
    }

    /// Calls `body` with `bytes`' address and size, or (nil, 0).
    private static func withOptionalBytes<T>(_ bytes: [UInt8]?, _ body: (UnsafeRawPointer?, UInt32) -> T) -> T {
        guard let bytes else { return body(nil, 0) }
        return bytes.withUnsafeBytes { body($0.baseAddress, UInt32($0.count)) }
    }
}
