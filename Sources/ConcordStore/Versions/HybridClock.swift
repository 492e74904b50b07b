#if canImport(Glibc)
    import Glibc
#endif

/// The hybrid logical clock's rules (see the architecture document, "Versions and the clock").
/// The clock's state lives in the store's metadata and is advanced inside write transactions;
/// these functions only compute.
package enum HybridClock {
    /// The wall clock in milliseconds since the Unix epoch.
    @Sendable package static func wallMilliseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(max(0, ts.tv_sec)) * 1000 + UInt64(ts.tv_nsec / 1_000_000)
    }

    /// The hlc of a local write, `max(now, clock + 1, current version of the key + 1)`, and the clock after it.
    ///
    /// The write beats the record it replaces even when that record came from a clock running ahead,
    /// but the replica's clock moves only as far as its own progression (`max(now, clock + 1)`) or
    /// the drift bound, so one skewed key does not drag every later write on the replica ahead with it.
    package static func localWrite(
        nowMilliseconds: UInt64, clock: UInt64, existing: UInt64?,
        maxDriftMilliseconds: UInt64
    ) -> (hlc: UInt64, clock: UInt64) {
        let own = max(nowMilliseconds << 16, clock &+ 1)
        guard let existing, existing >= own else { return (own, own) }
        let hlc = existing &+ 1
        return (hlc, max(own, min(hlc, bound(nowMilliseconds: nowMilliseconds, maxDriftMilliseconds: maxDriftMilliseconds))))
    }

    /// The greatest hlc the clock may hold: `maxDrift` milliseconds ahead of the wall clock.
    package static func bound(nowMilliseconds: UInt64, maxDriftMilliseconds: UInt64) -> UInt64 {
        (nowMilliseconds &+ maxDriftMilliseconds) << 16 | 0xFFFF
    }

    /// The clock after merging a remote version: advanced to the remote hlc, but never beyond
    /// `maxDrift` milliseconds ahead of the wall clock. Returns whether the remote was beyond that bound.
    package static func merge(remote: UInt64, clock: UInt64, nowMilliseconds: UInt64, maxDriftMilliseconds: UInt64) -> (clock: UInt64, skewed: Bool) {
        let bound = bound(nowMilliseconds: nowMilliseconds, maxDriftMilliseconds: maxDriftMilliseconds)
        return (max(clock, min(remote, bound)), remote > bound)
    }
}
