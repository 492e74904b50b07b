/// The rules for suite names and keys.
package enum Names {
    /// Longest suite name, in bytes.
    package static let maxSuiteNameBytes = 128
    /// Longest key, in UTF-8 bytes.
    package static let maxKeyBytes = 256

    /// Throws unless `name` is 1–128 bytes of letters, digits, `.`, `_`, `-` (and not `.` or `..`).
    package static func validateSuite(_ name: String) throws {
        // Every record from outside passes here (the sync layer's gate): read the bytes in place.
        let problem = name.utf8.withContiguousStorageIfAvailable(suiteProblem) ?? suiteProblem(Array(name.utf8))
        if let problem { throw ConcordError.invalidSuiteName(name, reason: problem) }
    }

    /// What is wrong with a suite name's bytes, or nil.
    private static func suiteProblem(_ bytes: some Collection<UInt8>) -> String? {
        guard !bytes.isEmpty else { return "it is empty" }
        guard bytes.count <= maxSuiteNameBytes else { return "it is \(bytes.count) bytes, over the limit of \(maxSuiteNameBytes)" }
        var dots = 0
        for b in bytes {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                continue
            case UInt8(ascii: "."):
                dots += 1
            default:
                return "only letters, digits, '.', '_' and '-' are allowed"
            }
        }
        return dots == bytes.count && dots <= 2 ? "'.' and '..' are not suite names" : nil
    }

    /// Throws unless `key` is 1–256 bytes of UTF-8 (up to `ReservedSuite.maxKeyBytes` in the reserved
    /// suite, whose keys name a suite and a key): a key that can be read or removed.
    package static func validateKey(_ key: String, inSuite suite: String? = nil) throws {
        let count = key.utf8.count
        guard count > 0 else { throw ConcordError.invalidKey(key, reason: "it is empty") }
        guard count > maxKeyBytes else { return } // within every suite's limit: no need to look at the suite
        let limit = suite == ReservedSuite.name ? ReservedSuite.maxKeyBytes : maxKeyBytes
        guard count <= limit else { throw ConcordError.invalidKey(key, reason: "it is \(count) bytes, over the limit of \(limit)") }
    }

    /// Throws unless `key` may be written: `validateKey`'s rules, and no U+0000 (a hub's PostgreSQL
    /// text cannot hold it, nor can C strings). A key holding one, stored before this rule, can still
    /// be read and removed; syncs leave it out (see the architecture document, "Trust and time").
    package static func validateNewKey(_ key: String, inSuite suite: String? = nil) throws {
        try validateKey(key, inSuite: suite)
        guard !(key.utf8.withContiguousStorageIfAvailable { $0.contains(0) } ?? key.utf8.contains(0)) else {
            throw ConcordError.invalidKey(key, reason: "it contains U+0000 (NUL), which keys may not hold")
        }
    }
}
