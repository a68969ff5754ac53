/// Errors raised by the Registration module.
public enum RegistrationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Two planes that must have the same size do not.
    case sizeMismatch(String)
    /// A plane is too small (or empty) to register.
    case tooSmall(String)
    /// An FFTW plan could not be created.
    case fftPlanFailed(String)
    /// A numerical step failed (singular system, no convergence).
    case numerical(String)
    /// A star field has too few usable stars to register against (star
    /// alignment's reference plane): `found` unsaturated stars were
    /// detected at `detectionSigma` (`StarDetectionOptions.detectionSigma`),
    /// `needed` are required (`StarOptions.minimumMatches`).
    case tooFewStars(found: Int, needed: Int, detectionSigma: Double)

    /// A human sentence describing the failure.
    public var description: String {
        switch self {
        case .sizeMismatch(let s), .tooSmall(let s), .fftPlanFailed(let s), .numerical(let s):
            return s
        case .tooFewStars(let found, let needed, let sigma):
            return "Found \(found) star\(found == 1 ? "" : "s") in the reference; star alignment needs at least \(needed). "
                + "Choose a reference frame with more stars, or lower the detection threshold "
                + "(StarDetectionOptions.detectionSigma, now \(Self.shortest(sigma)) σ)."
        }
    }

    /// `x` without a trailing `.0` when it is a whole number (`5`, `3.5`).
    private static func shortest(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : String(x)
    }
}
