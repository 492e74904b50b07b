/// The human names replicas give themselves (``Store/setName(_:)-5yr2m``, `sync-tool name DIR NAME`): one
/// record per replica in the reserved suite, key `replica-name:<replica id>`, a last-writer-wins string.
/// Being an ordinary record, a name syncs by every transport (directories, bundles, `serve`, the hub)
/// with no path of its own.
package enum ReplicaNames {
    /// The longest name, in UTF-8 bytes.
    package static let maxBytes = 64
    static let keyPrefix = "replica-name:"

    package static func key(of replica: ReplicaID) -> String { keyPrefix + replica.description }

    /// Throws ``ConcordError`` `.invalidReplicaName` unless `name` is 1–64 bytes of UTF-8 without control characters.
    package static func validate(_ name: String) throws {
        let count = name.utf8.count
        guard count > 0 else { throw ConcordError.invalidReplicaName(name, reason: "it is empty") }
        guard count <= maxBytes else { throw ConcordError.invalidReplicaName(name, reason: "it is \(count) bytes, over the limit of \(maxBytes)") }
        if let control = name.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            let code = String(control.value, radix: 16, uppercase: true)
            throw ConcordError.invalidReplicaName(
                name, reason: "it holds the control character U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code)")
        }
    }

    /// The name a record of the reserved suite gives, if it is a live, well-formed name record.
    static func name(in record: Record) -> String? {
        guard case .string(let name)? = try? record.value(), (try? validate(name)) != nil else { return nil }
        return name
    }
}

extension ReplicaRows {
    /// The name `replica` gave itself, as this replica has it; nil when it has none (or a malformed one).
    package func replicaName(of replica: ReplicaID) throws -> String? {
        try record(suite: ReservedSuite.name, key: ReplicaNames.key(of: replica)).flatMap(ReplicaNames.name(in:))
    }

    /// Every replica name this replica holds.
    package func replicaNames() throws -> [ReplicaID: String] {
        var out: [ReplicaID: String] = [:]
        try scanRecords(suite: ReservedSuite.name, keyPrefix: ReplicaNames.keyPrefix) { key, row in
            if let id = ReplicaID(hex: String(key.dropFirst(ReplicaNames.keyPrefix.count))), let name = ReplicaNames.name(in: row.record) {
                out[id] = name
            }
            return true
        }
        return out
    }
}

extension ReplicaTransaction {
    /// Gives this replica `name` (nil removes it), as a last-writer-wins record of the reserved suite;
    /// returns false when it already had that name (nothing is written).
    package func nameReplica(_ name: String?) throws -> Bool {
        if let name { try ReplicaNames.validate(name) }
        let key = ReplicaNames.key(of: replica)
        let existing = try existingRow(suite: ReservedSuite.name, key: key)
        let current = try existing.flatMap { try record(of: $0, suite: ReservedSuite.name, key: key).value() }
        guard current != name.map(Value.string) else { return false }
        _ = try writePlain(
            suite: ReservedSuite.name, key: key, valueBytes: try name.map { try ValueCodec.encode(.string($0)) }, existing: existing)
        return true
    }
}
