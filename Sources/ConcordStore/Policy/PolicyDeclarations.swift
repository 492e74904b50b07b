/// The suite where a replica keeps what it knows about other suites — merge-policy declarations
/// and schema versions — as ordinary records, so they sync, journal and bundle like any other data.
/// Users read it (`sync-tool list DIR _concord`) but cannot write it directly.
///
/// Keys: `policy:SUITE:KEY` and `prefix:SUITE:PREFIX` hold a policy's name (a last-writer-wins
/// string, so concurrent different declarations settle on the later one); `schema:SUITE` holds the
/// suite's schema version (a max key: it only grows).
package enum ReservedSuite {
    package static let name = "_concord"
    /// Its keys name a suite and a key, so they may be longer than a user's key.
    package static let maxKeyBytes = 16 + Names.maxSuiteNameBytes + Names.maxKeyBytes

    static func keyDeclaration(suite: String, key: String) -> String { "policy:\(suite):\(key)" }
    static func prefixDeclaration(suite: String, prefix: String) -> String { "prefix:\(suite):\(prefix)" }
    static func keyDeclarations(of suite: String) -> String { "policy:\(suite):" }
    static func prefixDeclarations(of suite: String) -> String { "prefix:\(suite):" }
    package static func schemaKey(suite: String) -> String { "schema:\(suite)" }
}

/// A merge policy declared for a key, or for every key starting with a prefix.
///
/// ```swift
/// for declaration in try suite.policyDeclarations() { print(declaration.key, declaration.policy) }
/// ```
package struct PolicyDeclaration: Hashable, Sendable {
    /// The suite the declaration applies in.
    package let suite: String
    /// The key, or the prefix when `isPrefix`.
    package let key: String
    /// Whether `key` is a prefix: the declaration then covers every key that starts with it.
    package let isPrefix: Bool
    /// The declared merge policy.
    package let policy: MergePolicy
    /// The version of the declaration (the later of two concurrent declarations wins).
    package let version: Version

    /// Parses a record of the reserved suite; nil when it is not a live declaration.
    init?(reservedKey: String, record: Record) {
        let isPrefix: Bool
        var rest: Substring
        if reservedKey.hasPrefix("policy:") {
            (isPrefix, rest) = (false, reservedKey.dropFirst(7))
        } else if reservedKey.hasPrefix("prefix:") {
            (isPrefix, rest) = (true, reservedKey.dropFirst(7))
        } else {
            return nil
        }
        guard let colon = rest.firstIndex(of: ":"), case .string(let name)? = try? record.value(),
            let policy = MergePolicy(rawValue: name)
        else { return nil }
        suite = String(rest[..<colon])
        rest = rest[rest.index(after: colon)...]
        key = String(rest)
        self.isPrefix = isPrefix
        self.policy = policy
        version = record.version
    }
}

extension ReplicaRows {
    /// The declarations of `suite` (or of every suite), exact keys first, each in key order.
    package func policyDeclarations(suite: String?) throws -> [PolicyDeclaration] {
        var out: [PolicyDeclaration] = []
        for prefix in suite.map({ [ReservedSuite.keyDeclarations(of: $0), ReservedSuite.prefixDeclarations(of: $0)] }) ?? ["policy:", "prefix:"] {
            try scanRecords(suite: ReservedSuite.name, keyPrefix: prefix) { key, row in
                if let declaration = PolicyDeclaration(reservedKey: key, record: row.record) { out.append(declaration) }
                return true
            }
        }
        return out
    }

    /// The policy declared for `key` of `suite`: its own declaration (in an encrypted suite, under
    /// its name's row key, which `keyring`'s key makes), else the longest declared prefix it starts
    /// with; nil when none is declared.
    package func declaredPolicy(suite: String, key: String, keyring: SuiteKeyring) throws -> MergePolicy? {
        let reservedKey = ReservedSuite.keyDeclaration(suite: suite, key: try sealing(suite: suite, keyring: keyring)?.rowKey(for: key) ?? key)
        if let record = try record(suite: ReservedSuite.name, key: reservedKey), let declaration = PolicyDeclaration(reservedKey: reservedKey, record: record) {
            return declaration.policy
        }
        return try prefixPolicies(suite: suite).first { key.hasPrefix($0.prefix) }?.policy
    }

    /// The prefix declarations of `suite`, longest prefix first.
    package func prefixPolicies(suite: String) throws -> [(prefix: String, policy: MergePolicy)] {
        var out: [(prefix: String, policy: MergePolicy)] = []
        try scanRecords(suite: ReservedSuite.name, keyPrefix: ReservedSuite.prefixDeclarations(of: suite)) { key, row in
            if let d = PolicyDeclaration(reservedKey: key, record: row.record) { out.append((d.key, d.policy)) }
            return true
        }
        return out.sorted { $0.prefix.utf8.count > $1.prefix.utf8.count }
    }

    /// Whether any key of `suite` has a declaration of its own (one cursor seek).
    package func hasKeyDeclarations(suite: String) throws -> Bool {
        var found = false
        try scanRecords(suite: ReservedSuite.name, keyPrefix: ReservedSuite.keyDeclarations(of: suite)) { _, _ in
            found = true
            return false
        }
        return found
    }

    /// The schema version stored for `suite`, if any.
    package func schemaVersion(suite: String) throws -> Int? {
        guard case .int(let version)? = try record(suite: ReservedSuite.name, key: ReservedSuite.schemaKey(suite: suite))?.value() else { return nil }
        return version
    }
}
