/// How a run turned its CFA mosaics into colour, as the report records it
/// (`"debayer"`): the method, the pattern the reference frame was
/// debayered with and where that pattern came from, and the `--wb` choice.
///
/// A run has one when its reference frame is a one-channel mosaic that was
/// debayered (a camera raw, a Bayer FITS or SER, or any one-channel frame
/// under `--cfa PATTERN`); runs on colour or grey frames, and `--cfa none`,
/// have none.
public struct DebayerRecord: Sendable, Equatable {
    /// Where the pattern came from.
    public enum PatternSource: String, Sendable {
        /// The reference frame's file (a raw's CFA, FITS `BAYERPAT`, a SER colour ID).
        case file
        /// `--cfa PATTERN`, whatever the file says.
        case option
    }

    /// The debayer method (`--debayer`).
    public var method: DebayerMethod
    /// The reference frame's pattern at its upright top-left pixel.
    public var pattern: BayerPattern
    /// Whether `pattern` is the file's or `--cfa`'s.
    public var patternSource: PatternSource
    /// The white balance choice (`--wb`); the multipliers `.camera` applied
    /// are `CarriedMetadata.whiteBalance`.
    public var whiteBalance: WhiteBalance

    public init(method: DebayerMethod, pattern: BayerPattern, patternSource: PatternSource, whiteBalance: WhiteBalance) {
        self.method = method
        self.pattern = pattern
        self.patternSource = patternSource
        self.whiteBalance = whiteBalance
    }

    /// The record for a frame of `channels` channels whose file says
    /// `fileSays`, debayered under `options`; nil when it is not debayered
    /// (colour frames, `--cfa none`, or no pattern from file or option).
    init?(channels: Int, fileSays: BayerPattern?, options: StackOptions) {
        guard channels == 1, let pattern = options.cfa.resolve(fileSays) else { return nil }
        let source: PatternSource
        if case .pattern = options.cfa { source = .option } else { source = .file }
        self.init(method: options.debayer, pattern: pattern, patternSource: source, whiteBalance: options.whiteBalance)
    }

    /// The record as a one-line JSON object.
    var json: String {
        "{ \"method\": \(JSONText.string(method.rawValue)), \"pattern\": \(JSONText.string(pattern.rawValue)), "
            + "\"patternSource\": \(JSONText.string(patternSource.rawValue)), \"wb\": \(JSONText.string(whiteBalance.rawValue)) }"
    }
}
