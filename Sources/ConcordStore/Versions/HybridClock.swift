#if canImport(Glibc)
    import Glibc
#endif

/// The hybrid logical clock's rules (see the architecture document, "Versions and the clock").
/// The clock's state lives in the store's metadata and is advanced inside write transactions;
/// these functions only compute.
package enum HybridClock {
    /// The last millisecond of the year 9999 (9999-12-31T23:59:59.999Z), in milliseconds since 1970.
    package static let maxMilliseconds: UInt64 = 253_402_300_799_999

    /// The greatest hlc any version may carry: `maxMilliseconds` with the counter at its top. No clock
    /// keeping civil time reaches it, so a version past it is damage or forgery; every replica refuses
    /// such versions alike (a constant, not the receiver's wall clock), and no write here produces one.
    package static let maxHLC: UInt64 = maxMilliseconds << 16 | 0xFFFF

    /// The wall clock in milliseconds since the Unix epoch.
    @Sendable package static func wallMilliseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(max(0, ts.tv_sec)) * 1000 + UInt64(ts.tv_nsec / 1_000_000)
    }

    /// The hlc of a local write, `max(now, clock + 1, current version of the key + 1)`, and the clock
    /// after it; nil when that hlc would be past `maxHLC` (the key's record, the clock or the wall clock
    /// is at the bound), so a write never wraps around to a version that loses.
    ///
    /// The write beats the record it replaces even when that record came from a clock running ahead,
    /// but the replica's clock moves only as far as its own progression (`max(now, clock + 1)`) or
    /// the drift bound, so one skewed key does not drag every later write on the replica ahead with it.
    package static func localWrite(
        nowMilliseconds: UInt64, clock: UInt64, existing: UInt64?,
        maxDriftMilliseconds: UInt64
    ) -> (hlc: UInt64, clock: UInt64)? {
        guard nowMilliseconds <= maxMilliseconds, clock < maxHLC else { return nil }
        let own = max(nowMilliseconds << 16, clock + 1)
        guard let existing, existing >= own else { return (own, own) }
        guard existing < maxHLC else { return nil }
        let hlc = existing + 1
        return (hlc, max(own, min(hlc, bound(nowMilliseconds: nowMilliseconds, maxDriftMilliseconds: maxDriftMilliseconds))))
    }

    /// The greatest hlc the clock may hold: `maxDrift` milliseconds ahead of the wall clock, and never past `maxHLC`.
    package static func bound(nowMilliseconds: UInt64, maxDriftMilliseconds: UInt64) -> UInt64 {
        let (ahead, overflow) = nowMilliseconds.addingReportingOverflow(maxDriftMilliseconds)
        guard !overflow, ahead <= maxMilliseconds else { return maxHLC }
        return ahead << 16 | 0xFFFF
    }

    /// The clock after merging a remote version: at least the wall clock (so the journal entry of a
    /// merge carries when it happened) and advanced to the remote hlc, but never beyond `maxDrift`
    /// milliseconds ahead of the wall clock. Returns whether the remote was beyond that bound.
    package static func merge(remote: UInt64, clock: UInt64, nowMilliseconds: UInt64, maxDriftMilliseconds: UInt64) -> (clock: UInt64, skewed: Bool) {
        let bound = bound(nowMilliseconds: nowMilliseconds, maxDriftMilliseconds: maxDriftMilliseconds)
        return (max(clock, min(remote, bound), min(nowMilliseconds, maxMilliseconds) << 16), remote > bound)
    }
}
