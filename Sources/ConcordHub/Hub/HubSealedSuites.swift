import Concord

/// What a pull holds each row of an encrypted suite to besides the gate (`RecordGate`): the suite's
/// declaration — the replica's, or the hub's when it is newer (the one the replica holds once it has
/// merged the hub's) — and, where this process holds the key the declaration names, the seal itself.
/// A row that fails is refused and named like any row the gate refuses, and the page's sound rows
/// merge:
///
/// - a sealed row of a suite no declaration names encrypted (its declaration never reached the hub);
/// - a value in the clear, or a policy record, in a suite declared encrypted: written by a device that
///   did not know, or forged (a deletion in the clear passes: encrypting a suite that holds values
///   turns each of them into one);
/// - a sealed row that does not open under the declared key, when this process holds it: its bytes
///   were changed in the database, or it was moved to another key or version.
///
/// <!-- assume: let hub = try Hub("postgresql://alice@db/settings"), entry: RemoteEntry = given() -->
/// ```swift
/// let suites = try HubSealedSuites(store: store, hub: hub, gate: RecordGate(store: store))
/// if let refused = suites.refusal(of: entry) { print(refused) }   // secrets/"3f…" (seq 9): its sealed record does not open …
/// ```
package struct HubSealedSuites {
    /// Per suite with a declaration: its version, and the key's identifier (nil: declared in the clear again).
    private var declared: [String: (version: Version, id: [UInt8]?)] = [:]
    private let keyring: SuiteKeyring

    /// The declarations of `store` and of the hub's rows for `hub`'s account (in the caller's snapshot),
    /// the newer of each; the hub's pass `gate` first (a refused one is left out).
    package init(store: Store, hub: Hub, gate: RecordGate) throws {
        keyring = store.core.keyring
        let local = try store.read { r in
            var found: [(String, Record)] = []
            try r.scanRecords(suite: ReservedSuite.name, keyPrefix: SealDeclaration.prefix) { key, row in
                found.append((key, row.record))
                return true
            }
            return found
        }
        for (key, record) in local { add(key, record) }
        let rows = try hub.db.execute(
            "SELECT \(HubRow.columns) FROM concord_hub.records WHERE account = $1 AND suite = $2 AND starts_with(key, $3)",
            [.text(hub.account), .text(ReservedSuite.name), .text(SealDeclaration.prefix)], operation: "read the account's encryption declarations")
        for row in 0..<rows.count {
            if case .success(let entry) = try HubRow(rows, row).entry(gate: gate) { add(entry.key, entry.record) }
        }
    }

    private mutating func add(_ reservedKey: String, _ record: Record) {
        let suite = String(reservedKey.dropFirst(SealDeclaration.prefix.count))
        if let known = declared[suite], known.version >= record.version { return }
        guard case .data(let id)? = try? record.value() else {
            declared[suite] = (record.version, nil)
            return
        }
        declared[suite] = (record.version, Array(id))
    }

    /// Why `entry` (a sound row of the hub) may not be merged here; nil when it may.
    package func refusal(of entry: RemoteEntry) -> ConcordError? {
        guard entry.suite != ReservedSuite.name else { return nil }
        func refused(_ reason: String) -> ConcordError {
            ConcordError.refused(suite: entry.suite, key: entry.key, seq: entry.seq, problem: .undecodable, reason: reason)
        }
        let id = declared[entry.suite]?.id
        guard entry.record.isSealed else {
            guard id != nil, !(entry.record.isPlain && entry.record.isTombstone) else { return nil }
            return refused(
                "it is a value in the clear in suite \(ConcordError.quoted(entry.suite)), which is declared encrypted: written by a device that did not know it, or forged"
            )
        }
        guard id != nil else {
            return refused(
                "it is sealed, and no declaration names suite \(ConcordError.quoted(entry.suite)) encrypted (the device that encrypted it synced without suite \(ReservedSuite.name))"
            )
        }
        guard let sealing = SealDeclaration.checking(suite: entry.suite, declared: id, keyring: keyring) else { return nil }
        // One sealed with a key the suite was rotated from, which this process does not hold, is merged unopened.
        do { _ = try sealing.openWithAnyKey(entry.record, storedKey: entry.key) } catch {
            return refused("its sealed record does not open under the suite's key, so its bytes are damaged or forged: \(error)")
        }
        return nil
    }
}
