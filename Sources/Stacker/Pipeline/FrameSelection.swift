/// Which frames a run keeps by quality (`--keep N` or `--keep P%`): the
/// best ones by a quality measure, after every frame is registered and
/// before the combination; the others are dropped from the stack.
public enum FrameSelection: Sendable, Equatable {
    /// Keep this many frames (≥ 1).
    case count(Int)
    /// Keep this percentage of the used frames (0 < P ≤ 100), rounded to
    /// the nearest count, at least 1.
    case percent(Double)

    /// Checks the value; `nil` when valid, else a sentence saying what is wrong.
    public var invalidReason: String? {
        switch self {
        case .count(let n):
            return n >= 1 ? nil : "--keep needs at least 1 frame, got \(n)"
        case .percent(let p):
            return p.isFinite && p > 0 && p <= 100 ? nil : "--keep needs a percentage above 0 and at most 100, got \(p)%"
        }
    }

    /// How many of `available` frames are kept (at most `available`).
    public func keptCount(of available: Int) -> Int {
        switch self {
        case .count(let n): return min(n, available)
        case .percent(let p): return min(available, max(1, Int((Double(available) * p / 100).rounded())))
        }
    }

    /// What frames are ranked by (`--keep-by`).
    public enum Measure: String, Sendable, CaseIterable {
        /// The registration score (higher is better): how well the frame
        /// matches the reference, which blur, noise and a frame shifted
        /// off the scene all lower. For bursts and translations.
        case score
        /// The median star FWHM in pixels (lower is better): seeing and focus.
        case fwhm
        /// The median star roundness, minor over major axis (higher is
        /// better): tracking errors, wind and field tilt lower it.
        case roundness
        /// The number of stars detected (higher is better): thin cloud,
        /// haze and a bright sky lower it.
        case stars
        /// The frame's median luma, its sky level (lower is better): cloud
        /// lit by the town, the moon and dawn raise it.
        case background

        /// True when a smaller value is the better frame.
        public var lowerIsBetter: Bool { self == .fwhm || self == .background }

        /// True for the measures taken on the frame's stars.
        public var usesStars: Bool { self == .fwhm || self == .roundness || self == .stars }

        /// The frame's value, or nil when it was not measured.
        public func value(of frame: FrameReport) -> Double? {
            switch self {
            case .score: return frame.score
            case .fwhm: return frame.fwhm
            case .roundness: return frame.roundness
            case .stars: return frame.starsFound.map(Double.init)
            case .background: return frame.background
            }
        }
    }

    /// The outcome of a selection, for the report and the note on stderr.
    public struct Outcome: Sendable, Equatable {
        /// What frames were ranked by.
        public var measure: Measure
        /// The measure of the worst frame kept besides the reference (the
        /// reference's own when it is the only one kept): the frames
        /// dropped are those ranked below it.
        public var cutoff: Double
        /// Frames kept (the reference always among them).
        public var kept: Int
        /// Dropped frames by input index, best first, with their measure.
        public var dropped: [(index: Int, value: Double)]

        public static func == (a: Outcome, b: Outcome) -> Bool {
            a.measure == b.measure && a.cutoff == b.cutoff && a.kept == b.kept
                && a.dropped.map(\.index) == b.dropped.map(\.index) && a.dropped.map(\.value) == b.dropped.map(\.value)
        }
    }

    /// Chooses among the used frames of `reports`: ranks them by `measure`
    /// (nil: the median star FWHM when `usesStars` and every used frame has
    /// one, else the score; ties by input order; a frame without the
    /// measure ranks last), always keeps `referenceIndex`, and drops the
    /// rest beyond `keptCount`. Nil when nothing is dropped.
    public func select(_ reports: [FrameReport], referenceIndex: Int, usesStars: Bool,
                       by requested: Measure? = nil) -> Outcome? {
        let used = reports.indices.filter { reports[$0].used }
        let measure = requested
            ?? (usesStars && used.allSatisfy({ reports[$0].fwhm != nil }) ? .fwhm : .score)
        let lower = measure.lowerIsBetter
        func value(_ i: Int) -> Double { measure.value(of: reports[i]) ?? (lower ? .infinity : -.infinity) }
        func better(_ a: Int, _ b: Int) -> Bool {
            let va = value(a), vb = value(b)
            if va != vb { return lower ? va < vb : va > vb }
            return a < b
        }
        let keep = keptCount(of: used.count)
        guard keep < used.count else { return nil }
        // The reference first, then the others best first.
        let ranked = used.filter { $0 == referenceIndex } + used.filter { $0 != referenceIndex }.sorted(by: better)
        let others = ranked.prefix(keep).filter { $0 != referenceIndex }
        let cutoff = (others.isEmpty ? [referenceIndex] : others).map(value).reduce(lower ? -Double.infinity : .infinity) {
            lower ? max($0, $1) : min($0, $1)
        }
        return Outcome(measure: measure, cutoff: cutoff, kept: keep,
                       dropped: ranked.dropFirst(keep).map { ($0, value($0)) })
    }
}
