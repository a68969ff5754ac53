/// The documented exit codes of `stack`.
enum ExitCode: Int32 {
    /// The stack was written.
    case success = 0
    /// The work failed: unreadable or corrupt input, too few frames registered, write failed.
    case failure = 1
    /// The command line was wrong.
    case usage = 2
    /// Interrupted by SIGINT (128 + 2).
    case interrupted = 130
    /// Terminated by SIGTERM (128 + 15).
    case terminated = 143
}
