#if canImport(Glibc)
    import Glibc
#endif

/// Time stamps for the benchmark. `CLOCK_MONOTONIC` is one clock for the whole machine on Linux,
/// so a stamp taken in one process can be compared with a stamp taken in another.
enum BenchClock {
    /// Nanoseconds on the system-wide monotonic clock.
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Runs `body` and returns how long it took, in nanoseconds.
    static func measure(_ body: () throws -> Void) rethrows -> UInt64 {
        let start = now()
        try body()
        return now() &- start
    }
}
