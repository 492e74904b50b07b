import Concord
import Synchronization

/// A wall clock a test sets and moves by hand, for the versions a store stamps
/// (`Store.Options.wallClock`): it reads instants in milliseconds since 1970, as the hybrid clock
/// counts them, and moves by a `Duration`. Tombstone retention, clock skew and "last writer wins" become
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
    private let now: Mutex<UInt64>
    /// Called after every move: stores made with this clock tell their observers of values that
    /// expired (no timer follows a clock moved by hand).
    private let moved = Mutex<[@Sendable () -> Void]>([])

    /// A clock reading `start` (milliseconds since 1970). The default is 2027-01-15 08:00:00 UTC.
    ///
    /// ```swift
    /// let clock = ManualClock(1_800_000_000_000)
    /// ```
    public init(_ start: UInt64 = 1_800_000_000_000) { now = Mutex(start) }

    /// The time it reads now, in milliseconds since 1970.
    ///
    /// <!-- assume: let clock = ManualClock() -->
    /// ```swift
    /// let before = clock.milliseconds
    /// ```
    public var milliseconds: UInt64 { now.withLock { $0 } }

    /// Sets the time, forwards or backwards.
    ///
    /// <!-- assume: let clock = ManualClock() -->
    /// ```swift
    /// clock.set(1_900_000_000_000)
    /// ```
    public func set(_ milliseconds: UInt64) {
        now.withLock { $0 = milliseconds }
        didMove()
    }

    /// Moves the time forwards by `duration` (in whole milliseconds, as the clock counts).
    ///
    /// <!-- assume: let clock = ManualClock() -->
    /// ```swift
    /// clock.advance(.seconds(60))   // a minute later
    /// ```
    public func advance(_ duration: Duration) {
        now.withLock { $0 += duration.wholeMilliseconds }
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
        now.withLock { $0 -= duration.wholeMilliseconds }
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
    public var read: @Sendable () -> UInt64 { { [self] in milliseconds } }
}
