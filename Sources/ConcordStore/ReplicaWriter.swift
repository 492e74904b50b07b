import LMDB

/// Applies changes to records inside one write transaction, keeping each record, its journal
/// entry, the clock and the sequence number in step (DESIGN.md: Version, Clock, Journal).
///
/// Every change appends a journal entry and deletes the entry it supersedes, so the journal
/// holds one entry per key: O(keys), not O(writes).
public final class ReplicaWriter {
    let txn: Transaction
    let layout: StoreLayout
    /// The replica being written.
    public let replica: ReplicaID
    let localSource: ChangeSource
    let nowMilliseconds: UInt64
    var state: ReplicaState
    private let initialState: ReplicaState
    private(set) var changeCount = 0

    init(txn: Transaction, layout: StoreLayout, replica: ReplicaID, localSource: ChangeSource, nowMilliseconds: UInt64) throws {
        self.txn = txn
        self.layout = layout
        self.replica = replica
        self.localSource = localSource
        self.nowMilliseconds = nowMilliseconds
        self.state = try ReplicaState.load(txn, layout)
        self.initialState = state
    }

    /// The record stored for `key` in `suite`, if any (tombstones included).
    public func record(suite: String, key: String) throws -> Record? {
        try storedRecord(suite: suite, key: key)?.record
    }

    /// The seq and hlc of the row under `recordKey`, checked as `row` checks it, without copying its value.
    private func rowHeader(_ recordKey: [UInt8]) throws -> (seq: UInt64, hlc: UInt64)? {
        guard let bytes = try txn.get(layout.records, recordKey) else { return nil }
        do { return try StoredRow.decodeSeqAndHLC(bytes) } catch {
            throw StoreError.damaged(path: "records", reason: "the record for \(StoreLayout.splitRecordKey(recordKey).map { "\($0.suite)/\($0.key)" } ?? "a key") does not decode: \(error)")
        }
    }

    /// Writes a local value (or a tombstone for `nil`) with a fresh version that wins over what this replica held.
    @discardableResult
    public func writeLocal(suite: String, key: String, encodedValue: [UInt8]?) throws -> Version {
        let recordKey = StoredRowKey(suite: suite, key: key)
        let existing = try rowHeader(recordKey.bytes)
        let hlc = HybridClock.localWrite(nowMilliseconds: nowMilliseconds, clock: state.clock, existing: existing?.hlc)
        let version = Version(hlc: hlc, replica: replica)
        state.clock = max(state.clock, hlc)
        try put(recordKey, Record(version: version, encodedValue: encodedValue), source: localSource, replacingSeq: existing?.seq)
        return version
    }

    /// Stores `record` for `key`, journaled as coming from `source`, without comparing versions:
    /// the caller (the merge) decided it wins.
    public func store(_ record: Record, suite: String, key: String, source: ChangeSource) throws {
        let recordKey = StoredRowKey(suite: suite, key: key)
        try put(recordKey, record, source: source, replacingSeq: try rowHeader(recordKey.bytes)?.seq)
    }

    /// Like `store(_:suite:key:source:)`, for a caller that has just read the key's row in this
    /// transaction (`storedRecord`) and passes its seq (nil: no row), so the row is not looked up again.
    public func store(_ record: Record, suite: String, key: String, source: ChangeSource, replacingSeq: UInt64?) throws {
        try put(StoredRowKey(suite: suite, key: key), record, source: source, replacingSeq: replacingSeq)
    }

    /// Advances the clock after seeing `remote` (bounded by `maxDriftMilliseconds` ahead of the wall clock);
    /// returns whether `remote` was beyond that bound (clock skew).
    public func observeRemote(hlc remote: UInt64, maxDriftMilliseconds: UInt64) -> Bool {
        let (clock, skewed) = HybridClock.merge(remote: remote, clock: state.clock, nowMilliseconds: nowMilliseconds, maxDriftMilliseconds: maxDriftMilliseconds)
        state.clock = clock
        return skewed
    }

    /// The last journal seq this transaction has written (or found).
    public var lastSeq: UInt64 { state.seq }

    private func put(_ recordKey: StoredRowKey, _ record: Record, source: ChangeSource, replacingSeq existing: UInt64?) throws {
        if let existing { try txn.delete(layout.journal, StoreLayout.seqKey(existing)) }
        state.seq += 1
        let entry = JournalEntry(seq: state.seq, suite: recordKey.suite, key: recordKey.key, record: record, source: source)
        try txn.put(layout.records, recordKey.bytes, StoredRow(seq: state.seq, record: record).encoded)
        try txn.append(layout.journal, StoreLayout.seqKey(state.seq), entry.encodedValue())   // seqs only grow
        changeCount += 1
    }

    func finish() throws {
        if state.clock != initialState.clock || state.seq != initialState.seq { try state.save(txn, layout) }
    }
}

struct StoredRowKey {
    let suite: String
    let key: String
    let bytes: [UInt8]
    init(suite: String, key: String) {
        self.suite = suite
        self.key = key
        self.bytes = StoreLayout.recordKey(suite: suite, key: key)
    }
}
