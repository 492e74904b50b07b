import Concord

/// One row of the hub's `records` table as this client reads it back: its fields as the server sent
/// them, and — through the gate every record from outside passes (`RecordGate`) — the remote entry it
/// makes, or why it is refused. Any role with the account's login can write these rows, so nothing in
/// them is trusted: a bad row is refused and named, never merged.
///
/// <!-- assume: let v: [UInt8] = given(), bytes: [UInt8] = [], gate = RecordGate(store: store) -->
/// ```swift
/// switch HubRow(seq: 7, suite: Array("app".utf8), key: Array("k".utf8), version: v, value: bytes, policy: false).entry(gate: gate) {
/// case .success(let entry): print(entry.record)
/// case .failure(let refused): print(refused)   // app/"k" (seq 7): its value does not decode: …
/// }
/// ```
package struct HubRow: Sendable, Equatable {
    package var seq: Int64
    /// The suite and key columns' bytes (text, as the server holds it).
    package var suite: [UInt8]
    package var key: [UInt8]
    /// 24 bytes: the hlc big-endian, then the writer's replica id.
    package var version: [UInt8]
    /// The value's bytes, a policy record's state when `policy`, or nil for a tombstone.
    package var value: [UInt8]?
    package var policy: Bool
    /// A plain value's expiry in milliseconds since 1970 (hub schema 5), or nil when it does not expire.
    package var expires: Int64?
    /// The `sealed` column's bytes (hub schema 6): `value` or `tombstone` for a sealed record of an
    /// encrypted suite, whose sealed bytes `value` holds; nil for a record in the clear.
    package var sealed: [UInt8]?

    package init(
        seq: Int64, suite: [UInt8], key: [UInt8], version: [UInt8], value: [UInt8]?, policy: Bool, expires: Int64? = nil, sealed: [UInt8]? = nil
    ) {
        self.seq = seq
        self.suite = suite
        self.key = key
        self.version = version
        self.value = value
        self.policy = policy
        self.expires = expires
        self.sealed = sealed
    }

    /// The columns a statement selects to read rows, in the order `init(_:_:)` reads them; the
    /// device that pushed the row follows, at `pushedByColumn`.
    static let columns = "seq, suite, key, version, value, policy, expires_ms, sealed, pushed_by"
    static let pushedByColumn = 8

    /// Reads columns seq, suite, key, version, value, policy, expires_ms, sealed of `row` (`columns`).
    init(_ rows: PostgresRows, _ row: Int) throws {
        self.init(
            seq: try rows.int64(row, 0), suite: try rows.bytes(row, 1), key: try rows.bytes(row, 2),
            version: try rows.bytes(row, 3), value: rows.optionalBytes(row, 4), policy: try rows.bool(row, 5),
            expires: rows.isNull(row, 6) ? nil : try rows.int64(row, 6), sealed: rows.optionalBytes(row, 7))
    }

    /// The row's version, when its bytes are one.
    package var parsedVersion: Version? {
        guard version.count == 24 else { return nil }
        return Version(hlc: version.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }, replica: ReplicaID(bytes: Array(version.suffix(16)))!)
    }

    /// The remote entry this row makes, or why the gate refuses it.
    package func entry(gate: RecordGate) -> Result<RemoteEntry, ConcordError> {
        let suiteName = String(validating: suite, as: UTF8.self)
        let keyName = String(validating: key, as: UTF8.self)
        let shownSuite = suiteName ?? String(decoding: suite, as: UTF8.self)
        let shownKey = keyName ?? String(decoding: key, as: UTF8.self)
        let at = UInt64(max(0, seq))
        func refused(_ problem: RecordRefusal, _ reason: String) -> Result<RemoteEntry, ConcordError> {
            .failure(ConcordError.refused(suite: shownSuite, key: shownKey, seq: at, problem: problem, reason: reason))
        }
        guard seq > 0 else { return refused(.undecodable, "seq \(seq) is not a seq the hub hands out") }
        guard let suiteName else { return refused(.suiteName, "its suite name is not UTF-8") }
        guard let keyName else { return refused(.key, "its key is not UTF-8") }
        guard version.count == 24 else { return refused(.version, "its version is \(version.count) bytes, not 24") }
        guard !policy || value != nil else { return refused(.undecodable, "it is a policy record without a state") }
        if let expires {
            guard !policy, value != nil else { return refused(.undecodable, "it is a \(policy ? "policy record" : "tombstone") with an expiry") }
            guard expires > 0, UInt64(expires) <= HybridClock.maxMilliseconds else {
                return refused(
                    .version, "its expiry (\(expires) ms since 1970) is not a time any clock produces (after 1970, up to the end of the year 9999)")
            }
        }
        let flags: UInt8
        switch sealed.map({ String(decoding: $0, as: UTF8.self) }) {
        case nil: flags = policy ? 2 : value == nil ? 1 : expires == nil ? 0 : 3
        case let kind? where kind == "value" || kind == "tombstone":
            guard !policy, expires == nil, value != nil else {
                return refused(
                    .undecodable, "it is a sealed record \(policy ? "marked a policy record" : value == nil ? "without its sealed bytes" : "with an expiry")")
            }
            flags = kind == "value" ? 4 : 5
        case let kind?: return refused(.undecodable, "its sealed column holds \(ConcordError.quoted(kind)), neither value nor tombstone")
        }
        var encoded: [UInt8] = [flags]
        encoded += version
        if let expires { encoded += PostgresValue.bigEndian(UInt64(expires)) }
        if let value { encoded += value }
        let record: Record
        do { record = try Record.decode(encoded, validatingValue: false) } catch {
            return error.writtenByNewerConcord
                ? refused(.writtenByNewerConcord, "its policy state: \(error)") : refused(.undecodable, "its record does not decode: \(error)")
        }
        if let problem = gate.refusal(suite: suiteName, key: keyName, seq: at, record: record) { return .failure(problem) }
        return .success(RemoteEntry(seq: at, suite: suiteName, key: keyName, record: record))
    }
}
