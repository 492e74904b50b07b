/// A key within a suite: what a record is stored under.
///
/// ```swift
/// let id = SuiteKey(suite: "prefs", key: "theme")
/// ```
package struct SuiteKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    package let suite: String
    package let key: String

    package init(suite: String, key: String) {
        self.suite = suite
        self.key = key
    }

    /// Ordered as the store orders records: by the suite's bytes, then the key's.
    package static func < (a: SuiteKey, b: SuiteKey) -> Bool {
        a.suite != b.suite
            ? Array(a.suite.utf8).lexicographicallyPrecedes(b.suite.utf8)
            : Array(a.key.utf8).lexicographicallyPrecedes(b.key.utf8)
    }

    package var description: String { "\(suite)/\(key)" }
}
