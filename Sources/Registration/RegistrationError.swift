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
    /// alignment's reference plane).
    case tooFewStars(String)

    /// A human sentence describing the failure.
    public var description: String {
        switch self {
        case .sizeMismatch(let s), .tooSmall(let s), .fftPlanFailed(let s), .numerical(let s),
             .tooFewStars(let s):
            return s
        }
    }
}
