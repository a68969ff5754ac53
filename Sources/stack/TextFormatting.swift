/// Small text helpers the CLI's outputs share: numbers to fixed decimals,
/// trimming.

/// `x` with `places` decimals ("inf" when infinite).
func fixedDecimals(_ x: Double, _ places: Int) -> String {
    guard x.isFinite else { return x > 0 ? "inf" : x < 0 ? "-inf" : "nan" }
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let r = (x * scale).rounded() / scale
    var s = "\(r)"
    if let dot = s.firstIndex(of: "."), !s.contains("e") {
        let have = s.distance(from: dot, to: s.endIndex) - 1
        if have < places { s += String(repeating: "0", count: places - have) }
    }
    return s
}

extension String {
    /// This text without trailing characters from `set`.
    func trimmingTrailing(_ set: String) -> String {
        var s = Substring(self)
        while let last = s.last, set.contains(last) { s = s.dropLast() }
        return String(s)
    }
}

extension Substring {
    /// This text without leading and trailing `c`.
    func trimmingCharacters(_ c: Character) -> String {
        String(drop { $0 == c }.reversed().drop { $0 == c }.reversed())
    }
}
