import LMDB

/// A record as this replica stores it: the record and the seq of its one journal entry.
///
/// ```swift
/// let row = try store.read { r in try r.storedRecord(suite: "prefs", key: "theme") }
/// print(row?.seq, row?.record.version)
/// ```
public struct StoredRecord: Hashable, Sendable {
    public let record: Record
    /// The seq of the journal entry that stored this record: later than a peer's cursor on this
    /// replica means the peer has not seen it.
    public let seq: UInt64

    public init(record: Record, seq: UInt64) {
        self.record = record
        self.seq = seq
    }
}

/// Read access to a replica inside one transaction: what a merge needs to decide.
/// Both `ReplicaWriter` (in `Store.write`) and `ReplicaReader` (in `Store.read`) provide it,
/// so a dry run decides exactly as the real run would.
///
/// ```swift
/// func isNew(_ rows: some ReplicaRows, _ suite: String, _ key: String) throws -> Bool {
///     try rows.storedRecord(suite: suite, key: key) == nil
/// }
/// ```
public protocol ReplicaRows {
    /// The replica being read.
    var replica: ReplicaID { get }
    /// The seq of the newest journal entry, as this transaction sees it.
    var lastSeq: UInt64 { get }
    /// The record stored for `key` in `suite` and its journal seq (tombstones included).
    func storedRecord(suite: String, key: String) throws -> StoredRecord?
    /// Where the journal entry `seq` came from (a local process or a sync), or nil if there is no such entry.
    func journalSource(seq: UInt64) throws -> ChangeSource?
    /// What this replica knows about its peers (see `PeerCursor`).
    func peerCursors() throws -> PeerCursorTable
}

/// Reads a replica inside one read transaction (`Store.read`). Valid only inside that closure.
///
/// ```swift
/// let (seq, entries) = try store.read { r in
///     var out: [JournalEntry] = []
///     try r.scanJournal(after: 0) { out.append($0); return true }
///     return (r.lastSeq, out)
/// }
/// ```
public final class ReplicaReader: ReplicaRows {
    let txn: Transaction
    let layout: StoreLayout
    let path: String
    public let replica: ReplicaID
    public let lastSeq: UInt64
    /// The replica's hybrid-clock reading at this snapshot.
    public let clock: UInt64

    init(txn: Transaction, layout: StoreLayout, replica: ReplicaID, path: String) throws {
        self.txn = txn
        self.layout = layout
        self.replica = replica
        self.path = path
        let state = try ReplicaState.load(txn, layout)
        self.lastSeq = state.seq
        self.clock = state.clock
    }

    public func storedRecord(suite: String, key: String) throws -> StoredRecord? {
        try RowAccess.storedRecord(txn, layout, path: path, suite: suite, key: key)
    }

    public func journalSource(seq: UInt64) throws -> ChangeSource? {
        try RowAccess.journalSource(txn, layout, path: path, seq: seq)
    }

    public func peerCursors() throws -> PeerCursorTable {
        try PeerCursorTable.load(txn, layout, path: path)
    }

    /// Visits the journal entries after `seq`, oldest first, until `body` returns false.
    public func scanJournal(after seq: UInt64, _ body: (JournalEntry) throws -> Bool) throws {
        try RowAccess.scanJournal(txn, layout, path: path, after: seq, body)
    }
}

extension ReplicaWriter: ReplicaRows {
    public func storedRecord(suite: String, key: String) throws -> StoredRecord? {
        try RowAccess.storedRecord(txn, layout, path: "records", suite: suite, key: key)
    }

    public func journalSource(seq: UInt64) throws -> ChangeSource? {
        try RowAccess.journalSource(txn, layout, path: "journal", seq: seq)
    }

    public func peerCursors() throws -> PeerCursorTable {
        try PeerCursorTable.load(txn, layout, path: "peers")
    }
}

extension Store {
    /// Runs `body` in one read-only snapshot of the replica (nothing is written; writers are not blocked).
    /// Do not start another transaction on this store inside `body`.
    ///
    /// ```swift
    /// let cursors = try store.read { r in try r.peerCursors() }
    /// ```
    public func read<R>(_ body: (ReplicaReader) throws -> R) throws -> R {
        try core.read { txn in
            try body(try ReplicaReader(txn: txn, layout: core.layout, replica: core.replicaID, path: core.path))
        }
    }
}

/// The row and journal lookups shared by readers and writers.
enum RowAccess {
    static func storedRecord(_ txn: Transaction, _ layout: StoreLayout, path: String, suite: String, key: String) throws -> StoredRecord? {
        guard let bytes = try txn.get(layout.records, StoreLayout.recordKey(suite: suite, key: key)) else { return nil }
        do {
            let row = try StoredRow.decode(bytes)
            return StoredRecord(record: row.record, seq: row.seq)
        } catch {
            throw StoreError.damaged(path: path, reason: "the record of \(suite)/\(key) does not decode: \(error)")
        }
    }

    /// Reads only the source of journal entry `seq` (`[format 1][source kind][source 16]…`), not its record.
    static func journalSource(_ txn: Transaction, _ layout: StoreLayout, path: String, seq: UInt64) throws -> ChangeSource? {
        guard let bytes = try txn.get(layout.journal, StoreLayout.seqKey(seq)) else { return nil }
        var reader = ByteReader(bytes)
        do {
            let format = try reader.byte()
            guard format == 1 else { throw ValueDecodingError("unknown format \(format)") }
            return try ChangeSource.decode(&reader)
        } catch {
            throw StoreError.damaged(path: path, reason: "journal entry \(seq): \(error)")
        }
    }

    static func scanJournal(_ txn: Transaction, _ layout: StoreLayout, path: String, after seq: UInt64, _ body: (JournalEntry) throws -> Bool) throws {
        guard seq < UInt64.max else { return }
        try txn.scan(layout.journal, from: StoreLayout.seqKey(seq + 1)) { key, value in
            guard let s = StoreLayout.decodeSeq(key) else { return true }
            let entry: JournalEntry
            do { entry = try JournalEntry.decode(seq: s, value) } catch {
                throw StoreError.damaged(path: path, reason: "journal entry \(s) does not decode: \(error)")
            }
            return try body(entry)
        }
    }
}

extension ReplicaWriter {
    /// The wall clock (milliseconds since 1970) read when this transaction began.
    public var wallClockMilliseconds: UInt64 { nowMilliseconds }
}
