import SceneGen

/// The tests' name for SceneGen's DNG writer (`DNGFile`): a minimal Adobe
/// DNG 1.4 of a 16-bit CFA mosaic with the tags a raw reader needs.
public typealias HandMadeDNG = DNGFile
