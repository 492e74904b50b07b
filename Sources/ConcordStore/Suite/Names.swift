/// The rules for suite names and keys.
package enum Names {
    /// Longest suite name, in bytes.
    package static let maxSuiteNameBytes = 128
    /// Longest key, in UTF-8 bytes.
    package static let maxKeyBytes = 256

    /// Throws unless `name` is 1–128 bytes of letters, digits, `.`, `_`, `-` (and not `.` or `..`).
    package static func validateSuite(_ name: String) throws {
        let bytes = name.utf8
        guard !bytes.isEmpty else { throw StoreError.invalidSuiteName(name, reason: "it is empty") }
        guard bytes.count <= maxSuiteNameBytes else {
            throw StoreError.invalidSuiteName(name, reason: "it is \(bytes.count) bytes, over the limit of \(maxSuiteNameBytes)")
        }
        for b in bytes {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                continue
            default:
                throw StoreError.invalidSuiteName(name, reason: "only letters, digits, '.', '_' and '-' are allowed")
            }
        }
        guard name != ".", name != ".." else { throw StoreError.invalidSuiteName(name, reason: "'.' and '..' are not suite names") }
    }

    /// Throws unless `key` is 1–256 bytes of UTF-8 (up to `ReservedSuite.maxKeyBytes` in the reserved
    /// suite, whose keys name a suite and a key): a key that can be read or removed.
    package static func validateKey(_ key: String, inSuite suite: String? = nil) throws {
        let count = key.utf8.count
        let limit = suite == ReservedSuite.name ? ReservedSuite.maxKeyBytes : maxKeyBytes
        guard count > 0 else { throw StoreError.invalidKey(key, reason: "it is empty") }
        guard count <= limit else { throw StoreError.invalidKey(key, reason: "it is \(count) bytes, over the limit of \(limit)") }
    }

    /// Throws unless `key` may be written: `validateKey`'s rules, and no U+0000 (a hub's PostgreSQL
    /// text cannot hold it, nor can C strings). A key holding one, stored before this rule, can still
    /// be read and removed; syncs leave it out (see the architecture document, "Trust").
    package static func validateNewKey(_ key: String, inSuite suite: String? = nil) throws {
        try validateKey(key, inSuite: suite)
        guard !key.utf8.contains(0) else {
            throw StoreError.invalidKey(key, reason: "it contains U+0000 (NUL), which keys may not hold")
        }
    }
}
