public import Registration

/// An image a file attaches to its main picture rather than showing it: a
/// depth map, or another auxiliary image (a portrait matte, an HDR gain
/// map). Phones write these beside HEIC photos; `ImageFile.auxiliaryImages`
/// reads them, and depth effects use the depth map.
public struct AuxiliaryImage: Sendable {
    /// What the image is.
    public enum Kind: Sendable, Equatable {
        /// A depth map; `depth` says how its values map to distance.
        case depth
        /// Any other auxiliary image, named by its URN as the file gives it
        /// (e.g. `urn:com:apple:photo:2020:aux:hdrgainmap`).
        case auxiliary(type: String)
    }

    /// How a depth map's values relate to distance, as far as the file says
    /// (ISO/IEC 23008-12 depth representation information).
    public struct DepthRepresentation: Sendable, Equatable {
        /// How the stored value v (0…1) maps to distance.
        public enum Mapping: String, Sendable {
            /// v grows with 1/z between zNear and zFar.
            case uniformInverseZ
            /// v grows linearly with disparity between dMin and dMax.
            case uniformDisparity
            /// v grows linearly with z between zNear and zFar.
            case uniformZ
            /// Disparity through a non-linear model the file carries.
            case nonuniformDisparity
        }
        public var mapping: Mapping
        /// Nearest and farthest depth, when given.
        public var zNear: Double?, zFar: Double?
        /// Smallest and largest disparity, when given.
        public var dMin: Double?, dMax: Double?

        public init(mapping: Mapping, zNear: Double? = nil, zFar: Double? = nil, dMin: Double? = nil, dMax: Double? = nil) {
            self.mapping = mapping
            self.zNear = zNear
            self.zFar = zFar
            self.dMin = dMin
            self.dMax = dMax
        }
    }

    /// What the image is.
    public var kind: Kind
    /// Its samples on the 0…1 scale (stored value / (2^bits − 1)), one
    /// plane, upright like the main picture, at the auxiliary image's own
    /// size (a depth map is often smaller than the photo).
    public var plane: Plane
    /// Bits per sample as stored (8, 10, 12, 16).
    public var bitDepth: Int
    /// For a depth map, its representation when the file gives one.
    public var depth: DepthRepresentation?

    public init(kind: Kind, plane: Plane, bitDepth: Int, depth: DepthRepresentation? = nil) {
        self.kind = kind
        self.plane = plane
        self.bitDepth = bitDepth
        self.depth = depth
    }
}
