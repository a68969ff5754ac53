/// A portrait segmentation matte an iPhone stores beside a photo (a HEIC's
/// auxiliary image, or an MPF image after a JPEG's photo): 1 where the photo shows that part of a person, 0
/// elsewhere.
public enum Matte: String, Sendable, CaseIterable {
    /// The whole person (`urn:com:apple:photo:2018:aux:portraiteffectsmatte`).
    case person
    /// Hair (`urn:com:apple:photo:2019:aux:semantichairmatte`).
    case hair
    /// Skin (`urn:com:apple:photo:2019:aux:semanticskinmatte`).
    case skin
    /// Teeth (`urn:com:apple:photo:2019:aux:semanticteethmatte`).
    case teeth
    /// Glasses (`urn:com:apple:photo:2020:aux:semanticglassesmatte`).
    case glasses

    /// The matte an auxiliary image of type `urn` holds, told by the URN's
    /// last part (Apple has moved the year in the middle between releases),
    /// or nil for another auxiliary image (an HDR gain map, …).
    public init?(auxiliaryType urn: String) {
        let name = urn.split(separator: ":").last.map(String.init) ?? ""
        switch name {
        case "portraiteffectsmatte": self = .person
        case "semantichairmatte": self = .hair
        case "semanticskinmatte": self = .skin
        case "semanticteethmatte": self = .teeth
        case "semanticglassesmatte": self = .glasses
        default: return nil
        }
    }
}
