import LMDB
import Sodium
import Synchronization

/// The suite keys this process holds for one replica: those its stores were opened with
/// (``Store/Options/suiteKeys``) and those given since (``Suite/useKey(_:)``). In memory only,
/// never written anywhere.
///
/// ```swift
/// let keyring = SuiteKeyring()
/// keyring.add(.generate(), suite: "secrets")
/// let key = keyring.key(suite: "secrets")
/// ```
package final class SuiteKeyring: Sendable {
    private let keys = Mutex<[String: EncryptionKey]>([:])
    /// Whether any key was ever added: a process holding none reads plain suites without looking up declarations.
    private let holdsAny = Atomic<Bool>(false)
    /// How many times a key was added: what was found with the keys of one generation (a suite's
    /// sealing) holds until the next.
    private let additions = Atomic<Int>(0)

    package init() {}

    package func add(_ key: EncryptionKey, suite: String) {
        keys.withLock { $0[suite] = key }
        holdsAny.store(true, ordering: .releasing)
        additions.add(1, ordering: .releasing)
    }

    /// Changes with every key added (``add(_:suite:)``).
    package var generation: Int { additions.load(ordering: .acquiring) }

    /// Adds every suite's key of `keys` (``Store/Options/suiteKeys``).
    package func add(_ keys: [String: EncryptionKey]) {
        for (suite, key) in keys { add(key, suite: suite) }
    }

    package func key(suite: String) -> EncryptionKey? {
        guard holdsAny.load(ordering: .acquiring) else { return nil }
        return keys.withLock { $0[suite] }
    }

    /// Whether the process holds no key at all.
    package var isEmpty: Bool { !holdsAny.load(ordering: .acquiring) }
}

/// The reserved suite's record that declares a suite encrypted: `sealed:SUITE`, holding the key's
/// identifier (``EncryptionKey``'s keyed hash of a fixed label) as data, last-writer-wins, so every
/// replica knows the suite is encrypted, and which key opens it, before it holds the key.
package enum SealDeclaration {
    /// What every encryption declaration's key starts with.
    package static let prefix = "sealed:"
    package static func reservedKey(suite: String) -> String { prefix + suite }

    /// The identifier of the key `suite` is declared encrypted with in `txn`, or nil for a suite in the clear.
    package static func keyID(_ txn: Transaction, _ layout: StoreLayout, suite: String, path: String) throws -> [UInt8]? {
        guard suite != ReservedSuite.name else { return nil }
        let key = reservedKey(suite: suite)
        guard let bytes = try txn.get(layout.records, StoreLayout.recordKey(suite: ReservedSuite.name, key: key)) else { return nil }
        let reader = RowReader(suite: ReservedSuite.name, key: key, path: path)
        let value: Value?
        do { value = try reader.row(bytes).record.decodedValue() } catch { throw reader.undecodable(error) }
        switch value {
        case nil: return nil
        case .data(let id)?: return Array(id)
        case let other?:
            throw ConcordError.damaged(path: path, reason: "the encryption declaration of suite \"\(suite)\" holds a \(other.typeName), not a key id")
        }
    }

    /// The sealing that checks `suite`'s sealed records from outside: the key `keyring` holds for the
    /// suite, when it is the one `id` (its declaration's key identifier) names; nil when there is none
    /// to check with (no declaration, no key, or another key).
    package static func checking(suite: String, declared id: [UInt8]?, keyring: SuiteKeyring) -> SuiteSealing? {
        guard let id, let key = keyring.key(suite: suite), EncryptionKey.same(id: id, as: key) else { return nil }
        return SuiteSealing(suite: suite, key: key)
    }

    /// How `suite`'s records are sealed, as `txn`'s declaration and the keys of `keyring` say: nil for
    /// a suite in the clear.
    ///
    /// - Throws: ``ConcordError`` `.suiteKeyMissing` when the suite is encrypted and the process holds
    ///   no key for it, `.suiteKeyMismatch` when the key it holds is another.
    package static func sealing(_ txn: Transaction, _ layout: StoreLayout, suite: String, keyring: SuiteKeyring, path: String) throws -> SuiteSealing? {
        guard let id = try keyID(txn, layout, suite: suite, path: path) else { return nil }
        guard let key = keyring.key(suite: suite) else { throw ConcordError.suiteKeyMissing(suite: suite, path: path) }
        guard EncryptionKey.same(id: id, as: key) else { throw ConcordError.suiteKeyMismatch(suite: suite, given: key, declared: id, path: path) }
        return SuiteSealing(suite: suite, key: key)
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
    /// encrypted suite in row-key order, only its sealed rows, each name's row and policy
    /// contributions merged into one record), until `body` returns false.
    package func scanNamedRecords(suite: String, keyring: SuiteKeyring, _ body: (_ key: String, _ row: StoredRow) throws -> Bool) throws {
        guard let sealing = try sealing(suite: suite, keyring: keyring) else {
            try scanRecords(suite: suite) { _, key, row in try body(key, row) }
            return
        }
        // A name's rows are adjacent (its contributions' keys start with its row key): merged as they come.
        var pending: (rowKey: Substring, name: String, row: StoredRow)?
        var going = true
        try scanRecords(suite: suite) { _, storedKey, row in
            guard row.record.isSealed else { return true }
            let (name, record): (String, Record)
            do { (name, record) = try sealing.openStored(row.record, storedKey: storedKey) } catch {
                throw RowReader(suite: suite, key: storedKey, path: path).undecodable(error)
            }
            let rowKey = storedKey.prefix(SuiteSealing.rowKeyLength)
            if let held = pending, held.rowKey == rowKey {
                pending?.row = StoredRow(seq: max(held.row.seq, row.seq), record: RecordMerge.merge(held.row.record, record))
                return true
            }
            if let held = pending {
                going = try body(held.name, held.row)
                guard going else { return false }
            }
            pending = (rowKey, name, StoredRow(seq: row.seq, record: record))
            return true
        }
        if going, let held = pending { _ = try body(held.name, held.row) }
    }
}
