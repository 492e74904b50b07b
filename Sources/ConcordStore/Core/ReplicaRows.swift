import LMDB

/// Read access to a replica inside one transaction: what a merge needs to decide. Both the write
/// core (`ReplicaTransaction`) and a read snapshot (`ReplicaSnapshot`) provide it, so a dry run
/// decides exactly as the real run would.
package protocol ReplicaRows {
    /// The replica being read.
    var replica: ReplicaID { get }
    /// The seq of the newest journal entry, as this transaction sees it.
    var lastSeq: UInt64 { get }
    /// The LMDB transaction and layout, for the sync layer's own tables (cursors, conflicts).
    var txn: Transaction { get }
    var layout: StoreLayout { get }
    /// The replica's directory, for error messages.
    var path: String { get }
}

extension ReplicaRows {
    /// The record stored for `key` in `suite` and its journal seq (tombstones included).
    package func storedRecord(suite: String, key: String) throws -> StoredRecord? {
        guard let bytes = try txn.get(layout.records, StoreLayout.recordKey(suite: suite, key: key)) else { return nil }
        do {
            let row = try StoredRow.decode(bytes)
            return StoredRecord(record: row.record, seq: row.seq)
        } catch {
            throw ConcordError.damaged(path: path, reason: "the record of \(suite)/\(key) does not decode: \(error)")
        }
    }

    /// The record stored for `key` in `suite`, if any (tombstones included).
    package func record(suite: String, key: String) throws -> Record? {
        try storedRecord(suite: suite, key: key)?.record
    }

    /// Where the journal entry `seq` came from (a local process or a sync), or nil if there is no such
    /// entry. Reads only the entry's source, not its record.
    package func journalSource(seq: UInt64) throws -> ChangeSource? { try journalOrigin(seq: seq)?.source }

    /// Who made the change journalled at `seq`, and the replica's clock after it (nil for an entry of
    /// format 1, which stores of formats 1-3 wrote without one).
    package func journalOrigin(seq: UInt64) throws -> (source: ChangeSource, clock: UInt64?)? {
        guard let bytes = try txn.get(layout.journal, StoreLayout.seqKey(seq)) else { return nil }
        var reader = ByteReader(bytes)
        do { return (try JournalEntry.decodeSource(&reader), JournalEntry.clock(prefix: bytes)) } catch {
            throw ConcordError.damaged(path: path, reason: "journal entry \(seq): \(error)")
        }
    }

    /// Visits the journal entries after `seq`, oldest first, until `body` returns false.
    package func scanJournal(after seq: UInt64, _ body: (JournalEntry) throws -> Bool) throws {
        try scanJournalHeads(after: seq) { head in try body(try entry(of: head)) }
    }

    /// Visits the journal entries after `seq`, oldest first, read up to their records, until `body`
    /// returns false: `entry(of:)` decodes the rest of those it needs.
    package func scanJournalHeads(after seq: UInt64, _ body: (JournalEntry.Head) throws -> Bool) throws {
        guard seq < UInt64.max else { return }
        try txn.scan(layout.journal, from: StoreLayout.seqKey(seq + 1)) { key, value in
            guard let s = StoreLayout.decodeSeq(key) else {
                throw ConcordError.damaged(path: path, reason: "a journal key of \(key.count) bytes, not 8")
            }
            let head: JournalEntry.Head
            do { head = try JournalEntry.Head.decode(seq: s, value) } catch {
                throw ConcordError.damaged(path: path, reason: "journal entry \(s) does not decode: \(error)")
            }
            return try body(head)
        }
    }

    /// The whole entry `head` begins (its record decoded and checked).
    package func entry(of head: JournalEntry.Head) throws -> JournalEntry {
        do { return try head.entry() } catch {
            throw ConcordError.damaged(path: path, reason: "journal entry \(head.seq) does not decode: \(error)")
        }
    }

    /// Visits the records of `suite` (or of every suite) in key order, tombstones included, until `body` returns false.
    package func scanRecords(suite: String?, _ body: (_ suite: String, _ key: String, _ row: StoredRow) throws -> Bool) throws {
        let prefix = suite.map(StoreLayout.suitePrefix) ?? []
        try txn.scan(layout.records, from: prefix.isEmpty ? nil : prefix) { key, value in
            guard key.starts(with: prefix) else { return false }
            guard let (s, k) = StoreLayout.splitRecordKey(key) else {
                throw ConcordError.damaged(path: path, reason: "a record key that is not suite\\0key")
            }
            let row: StoredRow
            do { row = try StoredRow.decode(value) } catch {
                throw ConcordError.damaged(path: path, reason: "the record of \(s)/\(k) does not decode: \(error)")
            }
            return try body(s, k, row)
        }
    }

    /// Visits the records of `suite` whose key starts with `keyPrefix`, in key order, until `body` returns false.
    package func scanRecords(suite: String, keyPrefix: String, _ body: (_ key: String, _ row: StoredRow) throws -> Bool) throws {
        let prefix = StoreLayout.recordKey(suite: suite, key: keyPrefix)
        try txn.scan(layout.records, from: prefix) { key, value in
            guard key.starts(with: prefix) else { return false }
            guard let (_, k) = StoreLayout.splitRecordKey(key) else {
                throw ConcordError.damaged(path: path, reason: "a record key that is not suite\\0key")
            }
            let row: StoredRow
            do { row = try StoredRow.decode(value) } catch {
                throw ConcordError.damaged(path: path, reason: "the record of \(suite)/\(k) does not decode: \(error)")
            }
            return try body(k, row)
        }
    }
}
