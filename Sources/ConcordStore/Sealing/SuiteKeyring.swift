import LMDB
import Sodium
import Synchronization

/// The suite keys this process holds for one replica: those its stores were opened with
/// (``Store/Options/suiteKeys``) and those given since (``Suite/useKey(_:)``), a suite's current key
/// and any previous one given to read records sealed before a rotation. In memory only, never
/// written anywhere.
///
/// ```swift
/// let keyring = SuiteKeyring()
/// keyring.add(.generate(), suite: "secrets")
/// let keys = keyring.keys(suite: "secrets")
/// ```
package final class SuiteKeyring: Sendable {
    private let keys = Mutex<[String: [EncryptionKey]]>([:])
    /// Whether any key was ever added: a process holding none reads plain suites without looking up declarations.
    private let holdsAny = Atomic<Bool>(false)
    /// How many times a key was added: what was found with the keys of one generation (a suite's
    /// sealing) holds until the next.
    private let additions = Atomic<Int>(0)

    package init() {}

    /// Holds `key` for `suite`, beside the keys held for it already (once per key).
    package func add(_ key: EncryptionKey, suite: String) {
        keys.withLock { held in
            if !held[suite, default: []].contains(where: { EncryptionKey.same(id: $0.id, as: key) }) { held[suite, default: []].insert(key, at: 0) }
        }
        holdsAny.store(true, ordering: .releasing)
        additions.add(1, ordering: .releasing)
    }

    /// Changes with every key added (``add(_:suite:)``).
    package var generation: Int { additions.load(ordering: .acquiring) }

    /// Adds every suite's key of `keys` (``Store/Options/suiteKeys``).
    package func add(_ keys: [String: EncryptionKey]) {
        for (suite, key) in keys { add(key, suite: suite) }
    }

    /// The keys held for `suite`, the latest given first.
    package func keys(suite: String) -> [EncryptionKey] {
        guard holdsAny.load(ordering: .acquiring) else { return [] }
        return keys.withLock { $0[suite] ?? [] }
    }

    /// Whether the process holds no key at all.
    package var isEmpty: Bool { !holdsAny.load(ordering: .acquiring) }
}

/// The reserved suite's record that declares a suite encrypted: `sealed:SUITE`, holding as data the
/// identifier (``EncryptionKey``'s keyed hash of a fixed label) of the key the suite is sealed with,
/// then those of its previous keys, latest first (16 bytes each), last-writer-wins, so every replica
/// knows the suite is encrypted, which key opens it, and which keys it was rotated from, before it
/// holds a key.
package enum SealDeclaration {
    /// What every encryption declaration's key starts with.
    package static let prefix = "sealed:"
    package static func reservedKey(suite: String) -> String { prefix + suite }
    /// The bytes of one key identifier in the declaration.
    static let idBytes = 16

    /// The identifier of the key `suite` is declared encrypted with in `txn`, or nil for a suite in the clear.
    package static func keyID(_ txn: Transaction, _ layout: StoreLayout, suite: String, path: String) throws -> [UInt8]? {
        try keyIDs(txn, layout, suite: suite, path: path)?.current
    }

    /// The identifiers `suite`'s declaration in `txn` holds: the current key's and the previous keys'
    /// (latest first); nil for a suite in the clear.
    package static func keyIDs(_ txn: Transaction, _ layout: StoreLayout, suite: String, path: String) throws -> (current: [UInt8], previous: [[UInt8]])? {
        guard suite != ReservedSuite.name else { return nil }
        let key = reservedKey(suite: suite)
        guard let bytes = try txn.get(layout.records, StoreLayout.recordKey(suite: ReservedSuite.name, key: key)) else { return nil }
        let reader = RowReader(suite: ReservedSuite.name, key: key, path: path)
        let value: Value?
        do { value = try reader.row(bytes).record.decodedValue() } catch { throw reader.undecodable(error) }
        switch value {
        case nil: return nil
        case .data(let ids)?:
            guard let parsed = parse(Array(ids)) else {
                throw ConcordError.damaged(
                    path: path, reason: "the encryption declaration of suite \"\(suite)\" holds \(ids.count) bytes, not key ids of \(idBytes) bytes each")
            }
            return parsed
        case let other?:
            throw ConcordError.damaged(path: path, reason: "the encryption declaration of suite \"\(suite)\" holds a \(other.typeName), not a key id")
        }
    }

    /// The identifiers a declaration's data holds; nil when they are not whole ids.
    package static func parse(_ data: [UInt8]) -> (current: [UInt8], previous: [[UInt8]])? {
        guard !data.isEmpty, data.count % idBytes == 0 else { return nil }
        let ids = stride(from: 0, to: data.count, by: idBytes).map { Array(data[$0..<$0 + idBytes]) }
        return (ids[0], Array(ids.dropFirst()))
    }

    /// The sealing that checks `suite`'s sealed records from outside: the keys `keyring` holds for
    /// the suite, when one is the current key `declared` (a declaration's data, its key identifiers)
    /// names, with the previous ones it holds; nil when there is none to check with (no declaration,
    /// no key, or only other keys).
    package static func checking(suite: String, declared: [UInt8]?, keyring: SuiteKeyring) -> SuiteSealing? {
        let held = keyring.keys(suite: suite)
        guard let declared, !held.isEmpty, let ids = parse(declared) else { return nil }
        return try? sealing(suite: suite, current: ids.current, previous: ids.previous, held: held, path: "")
    }

    /// How `suite`'s records are sealed, as `txn`'s declaration and the keys of `keyring` say: nil for
    /// a suite in the clear.
    ///
    /// - Throws: ``ConcordError`` `.suiteKeyMissing` when the suite is encrypted and the process holds
    ///   no key for it, `.suiteKeyRotated` when it holds only keys the suite was rotated from,
    ///   `.suiteKeyMismatch` when the key it holds is another.
    package static func sealing(_ txn: Transaction, _ layout: StoreLayout, suite: String, keyring: SuiteKeyring, path: String) throws -> SuiteSealing? {
        guard let ids = try keyIDs(txn, layout, suite: suite, path: path) else { return nil }
        return try sealing(suite: suite, current: ids.current, previous: ids.previous, held: keyring.keys(suite: suite), path: path)
    }

    /// The sealing of `suite`, declared encrypted with the key `current` after `previous`, with the keys `held`.
    package static func sealing(suite: String, current: [UInt8], previous: [[UInt8]], held: [EncryptionKey], path: String) throws -> SuiteSealing {
        guard let first = held.first else { throw ConcordError.suiteKeyMissing(suite: suite, path: path) }
        let older = held.filter { key in previous.contains { EncryptionKey.same(id: $0, as: key) } }
        guard let key = held.first(where: { EncryptionKey.same(id: current, as: $0) }) else {
            if !older.isEmpty { throw ConcordError.suiteKeyRotated(suite: suite, given: older[0], declared: current, path: path) }
            throw ConcordError.suiteKeyMismatch(suite: suite, given: first, declared: current, path: path)
        }
        return SuiteSealing(suite: suite, key: key, previousKeys: older, lacksPreviousKeys: older.count < previous.count)
    }
}

extension ReplicaRows {
    /// How `suite`'s records are sealed in this snapshot (`SealDeclaration.sealing`): nil in the clear.
    package func sealing(suite: String, keyring: SuiteKeyring) throws -> SuiteSealing? {
        try SealDeclaration.sealing(txn, layout, suite: suite, keyring: keyring, path: path)
    }

    /// The record stored for the key named `key` in `suite` and its journal seq, opened: in an
    /// encrypted suite, the one under the name's row key merged with every replica's policy
    /// contribution (`SealedNameRecord`).
    package func namedRecord(suite: String, key: String, keyring: SuiteKeyring) throws -> StoredRecord? {
        if let sealing = try sealing(suite: suite, keyring: keyring) {
            return try SealedNameRecord.read(txn, layout, name: key, sealing: sealing, path: path)
        }
        guard let bytes = try txn.get(layout.records, StoreLayout.recordKey(suite: suite, key: key)) else { return nil }
        let row = try RowReader(suite: suite, key: key, path: path, opening: .byName(nil)).row(bytes)
        return StoredRecord(record: row.record, seq: row.seq)
    }

    /// Visits the records of `suite` by their keys' names, opened, tombstones included (in an
    /// encrypted suite in the order of their rows, only its sealed rows, each name's row and policy
    /// contributions — under any key it was sealed with — merged into one record), until `body`
    /// returns false.
    ///
    /// - Throws: ``ConcordError`` `.suiteKeyMissing` when a row is sealed with a key the suite was
    ///   rotated from that the process does not hold.
    package func scanNamedRecords(suite: String, keyring: SuiteKeyring, _ body: (_ key: String, _ row: StoredRow) throws -> Bool) throws {
        guard let sealing = try sealing(suite: suite, keyring: keyring) else {
            try scanRecords(suite: suite) { _, key, row in try body(key, row) }
            return
        }
        // A name's rows under one key are adjacent (its contributions' keys start with its row key),
        // but those sealed with a previous key are elsewhere: merged by name, then visited.
        var names: [String] = []
        var merged: [String: StoredRow] = [:]
        try scanRecords(suite: suite) { _, storedKey, row in
            guard row.record.isSealed else { return true }
            let opened: (name: String, record: Record)?
            do { opened = try sealing.openWithAnyKey(row.record, storedKey: storedKey) } catch {
                throw RowReader(suite: suite, key: storedKey, path: path).undecodable(error)
            }
            guard case (let name, let record)? = opened else { throw ConcordError.sealedWithPreviousKey(suite: suite, path: path) }
            if let held = merged[name] {
                merged[name] = StoredRow(seq: max(held.seq, row.seq), record: RecordMerge.merge(held.record, record))
            } else {
                names.append(name)
                merged[name] = StoredRow(seq: row.seq, record: record)
            }
            return true
        }
        for name in names where try !body(name, merged[name]!) { return }
    }
}
