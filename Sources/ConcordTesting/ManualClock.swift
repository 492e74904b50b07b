import Concord
import Synchronization

/// A wall clock a test sets and moves by hand, for the versions a store stamps
/// (`Store.Options.wallClock`): it reads the time since 1970 as a `Duration` (counted in whole
/// milliseconds, as the hybrid clock counts them), and moves by a `Duration`. Tombstone retention, clock skew and "last writer wins" become
/// things a test decides instead of waits for. The store's own clock still never goes backwards.
/// Values set to expire expire by it too: a store made with `Store.temporary(clock:)` tells its
/// observers when a move of the clock passed an expiry.
///
/// ```swift
/// let clock = ManualClock()
/// let store = try Store.temporary(clock: clock)
/// try store.suite("app").remove("draft")
/// clock.advance(days: 31)
/// #expect(try store.collectTombstones().collected == 1)
/// ```
public final class ManualClock: Sendable {
    /// Milliseconds since 1970.
    private let reading: Mutex<UInt64>
    /// Called after every move: stores made with this clock tell their observers of values that
    /// expired (no timer follows a clock moved by hand).
    private let moved = Mutex<[@Sendable () -> Void]>([])

    /// A clock reading `start`, the time since 1970-01-01 00:00:00 UTC (in whole milliseconds). The
    /// default is 2027-01-15 08:00:00 UTC.
    ///
    /// ```swift
    /// let clock = ManualClock(.seconds(1_800_000_000))
    /// ```
    public init(_ start: Duration = .seconds(1_800_000_000)) { reading = Mutex(start.wholeMilliseconds) }

    /// The time it reads now, since 1970-01-01 00:00:00 UTC.
    ///
    /// <!-- assume: let clock = ManualClock() -->
    /// ```swift
    /// let before = clock.now
    /// clock.advance(.seconds(60))
    /// #expect(clock.now - before == .seconds(60))
    /// ```
    public var now: Duration { .milliseconds(milliseconds) }

    /// ``now`` as versions and expiries count it: milliseconds since 1970.
    package var milliseconds: UInt64 { reading.withLock { $0 } }

    /// Sets the time (since 1970-01-01 00:00:00 UTC, in whole milliseconds), forwards or backwards.
    ///
    /// <!-- assume: let clock = ManualClock() -->
    /// ```swift
    /// clock.set(.seconds(1_900_000_000))
    /// ```
    public func set(_ time: Duration) {
        let milliseconds = time.wholeMilliseconds
        reading.withLock { $0 = milliseconds }
        didMove()
    }

    /// Moves the time forwards by `duration` (in whole milliseconds, as the clock counts).
    ///
    /// <!-- assume: let clock = ManualClock() -->
    /// ```swift
    /// clock.advance(.seconds(60))   // a minute later
    /// ```
    public func advance(_ duration: Duration) {
        reading.withLock { $0 += duration.wholeMilliseconds }
        didMove()
    }

    /// Moves the time forwards by whole days.
    ///
    /// <!-- assume: let clock = ManualClock() -->
    /// ```swift
    /// clock.advance(days: 30)
    /// ```
    public func advance(days: Int) { advance(.seconds(days * 86_400)) }

    /// Moves the time backwards by `duration` (a wall clock that was stepped back).
    ///
    /// <!-- assume: let clock = ManualClock() -->
    /// ```swift
    /// clock.rewind(.seconds(5))
    /// ```
    public func rewind(_ duration: Duration) {
        reading.withLock { $0 -= duration.wholeMilliseconds }
        didMove()
    }

    /// Calls `body` after every move of the clock (`Store.temporary(clock:)` registers its store).
    package func onMove(_ body: @escaping @Sendable () -> Void) { moved.withLock { $0.append(body) } }

    private func didMove() {
        for body in moved.withLock({ $0 }) { body() }
    }

    /// The clock as `Store.Options.wallClock` takes it.
    ///
    /// <!-- assume: let clock = ManualClock() -->
    /// ```swift
    /// var options = Store.Options()
    /// options.wallClock = clock.read
    /// ```
    public var read: @Sendable () -> Duration { { [self] in now } }
}
