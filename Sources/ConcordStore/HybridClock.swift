#if canImport(Glibc)
import Glibc
#endif

/// The hybrid logical clock rules of DESIGN.md. The clock's state lives in the store's
/// metadata and is advanced inside write transactions; these functions only compute.
enum HybridClock {
    /// The wall clock in milliseconds since the Unix epoch.
    static func wallMilliseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(max(0, ts.tv_sec)) * 1000 + UInt64(ts.tv_nsec / 1_000_000)
    }

    /// The hlc of a local write: `max(now, clock + 1, current version of the key + 1)`.
    static func localWrite(nowMilliseconds: UInt64, clock: UInt64, existing: UInt64?) -> UInt64 {
        var hlc = max(nowMilliseconds << 16, clock &+ 1)
        if let existing { hlc = max(hlc, existing &+ 1) }
        return hlc
    }

    /// The clock after merging a remote version: advanced to the remote hlc, but never beyond
    /// `maxDrift` milliseconds ahead of the wall clock. Returns whether the remote was beyond that bound.
    static func merge(remote: UInt64, clock: UInt64, nowMilliseconds: UInt64, maxDriftMilliseconds: UInt64) -> (clock: UInt64, skewed: Bool) {
        let bound = (nowMilliseconds &+ maxDriftMilliseconds) << 16 | 0xFFFF
        let skewed = remote > bound
        return (max(clock, min(remote, bound)), skewed)
    }
}
