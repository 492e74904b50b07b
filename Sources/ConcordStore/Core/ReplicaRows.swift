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
        let row = try rowReader(suite: suite, key: key).row(bytes)
        return StoredRecord(record: row.record, seq: row.seq)
    }

    /// The reader of `key`'s row in `suite` (`RowReader`).
    package func rowReader(suite: String, key: String) -> RowReader { RowReader(suite: suite, key: key, path: path) }

    /// The value a read of `key` in `suite` finds at `now` (nil for none, a tombstone or an expired value).
    package func value(suite: String, key: String, at now: UInt64) throws -> Value? {
        guard let record = try record(suite: suite, key: key) else { return nil }
        return try rowReader(suite: suite, key: key).value(of: record, now: { now })
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

    /// Visits the live journal entries after `seq`, oldest first, until `body` returns false.
    package func scanJournal(after seq: UInt64, _ body: (JournalEntry) throws -> Bool) throws {
        try scanJournalHeads(after: seq) { head in try body(try entry(of: head)) }
    }

    /// Visits the live journal entries after `seq`, oldest first, read up to their records, until `body`
    /// returns false: `entry(of:)` decodes the rest of those it needs.
    ///
    /// An entry is live while its key's row points at it. The journal is append-only: a change leaves
    /// the entry it supersedes in place (and tombstone collection the older entries of the key it drops)
    /// until `JournalCompaction` removes them in bulk, so a reader passes over a superseded entry exactly
    /// as if it were gone already. Only a journal holding more entries than there are rows can hold
    /// one (each row has one live entry), so the rows are looked up only then.
    package func scanJournalHeads(after seq: UInt64, _ body: (JournalEntry.Head) throws -> Bool) throws {
        guard seq < UInt64.max else { return }
        let mayHoldSuperseded = try journalMayHoldSuperseded()
        try txn.scan(layout.journal, from: StoreLayout.seqKey(seq + 1)) { key, value in
            let head = try journalHead(key, value)
            if mayHoldSuperseded, try !isLive(head) { return true }
            return try body(head)
        }
    }

    /// Whether the journal holds more entries than there are records: only then can some be superseded.
    package func journalMayHoldSuperseded() throws -> Bool {
        try txn.statistics(layout.journal).entries > txn.statistics(layout.records).entries
    }

    /// Whether the row of `head`'s key points at it (reads the row's seq alone).
    package func isLive(_ head: JournalEntry.Head) throws -> Bool {
        guard let prefix = try txn.get(layout.records, StoreLayout.recordKey(suite: head.suite, key: head.key), valuePrefix: 8) else {
            return false
        }
        return StoreLayout.decodeSeq(prefix) == head.seq
    }

    /// The head of the journal entry stored under `key` with `value`, checked.
    func journalHead(_ key: [UInt8], _ value: [UInt8]) throws -> JournalEntry.Head {
        guard let s = StoreLayout.decodeSeq(key) else {
            throw ConcordError.damaged(path: path, reason: "a journal key of \(key.count) bytes, not 8")
        }
        do { return try JournalEntry.Head.decode(seq: s, value) } catch {
            throw ConcordError.damaged(path: path, reason: "journal entry \(s) does not decode: \(error)")
        }
    }

    /// How many entries the journal holds that are live, and how many are superseded (awaiting compaction).
    package func journalCounts() throws -> (live: Int, superseded: Int) {
        let total = try txn.statistics(layout.journal).entries
        guard try journalMayHoldSuperseded() else { return (total, 0) }
        var live = 0
        try scanJournalHeads(after: 0) { _ in
            live += 1
            return true
        }
        return (live, total - live)
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
            return try body(s, k, try rowReader(suite: s, key: k).row(value))
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
            return try body(k, try rowReader(suite: suite, key: k).row(value))
        }
    }
}
