import Foundation

extension Duration {
    /// The duration in whole milliseconds, as the clock, the journal and the records count time:
    /// rounded down, a negative duration as zero, a huge one capped at `UInt64.max / 2`.
    package var wholeMilliseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let milliseconds = Double(seconds) * 1000 + Double(max(0, attoseconds) / 1_000_000_000_000_000)
        return UInt64(min(milliseconds, Double(UInt64.max / 2)))
    }

    /// The duration in seconds, for APIs that count time as a `Double` (Dispatch, `poll`, libpq).
    package var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

extension Date {
    /// The instant `milliseconds` after 1970, as the clock and the records count time.
    package init(milliseconds: UInt64) { self.init(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
