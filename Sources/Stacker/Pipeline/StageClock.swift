import Synchronization

/// The run's stage timings, added to from any thread. Per-frame stages are
/// summed over frames, so with several threads they can exceed the wall
/// time (see `StageTimings`).
final class StageClock: Sendable {
    /// The stages the pipeline times.
    enum Stage: Sendable { case decode, register, calibrate, warp, stack }

    private let timings = Mutex(StageTimings())
    private let start = ContinuousClock.now

    /// Runs `body`, adds its wall time to `stage` and returns its value.
    func time<T>(_ stage: Stage, _ body: () throws -> T) rethrows -> T {
        let (value, elapsed) = try measure(body)
        add(elapsed, to: stage)
        return value
    }

    /// Adds `seconds` to `stage`.
    func add(_ seconds: Double, to stage: Stage) {
        timings.withLock {
            switch stage {
            case .decode: $0.decode += seconds
            case .register: $0.register += seconds
            case .calibrate: $0.calibrate += seconds
            case .warp: $0.warp += seconds
            case .stack: $0.stack += seconds
            }
        }
    }

    /// Adds the wall time of work that warped and stacked at once: the
    /// `warpShare` part (0…1) to warp, the rest to stack.
    func addFused(_ seconds: Double, warpShare: Double) {
        add(seconds * warpShare, to: .warp)
        add(seconds * (1 - warpShare), to: .stack)
    }

    /// The timings so far, with `total` the wall time since the clock was made.
    var reading: StageTimings {
        var t = timings.withLock { $0 }
        t.total = seconds(since: start)
        return t
    }
}

/// Runs `body` and returns its value and the wall-clock seconds it took.
func measure<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let start = ContinuousClock.now
    let value = try body()
    return (value, seconds(since: start))
}

/// Seconds elapsed since `start`.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let d = ContinuousClock.now - start
    return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
}
