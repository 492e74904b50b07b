import Concord

extension ConcordError {
    /// No change of `key` in `suite` arrived within `timeout` (`.timedOut`).
    static func noChange(suite: String, key: String, within timeout: Duration) -> ConcordError {
        ConcordError(.timedOut, "no change of \(suite)/\(key) arrived within \(timeout)", suite: suite, key: key)
    }
}
