import LMDB

/// The write core: every change to a replica — a local set, delete or reset, an atomic update, a
/// merged remote record — goes through one of these, inside one LMDB write transaction.
///
/// It keeps each record, its one journal entry, the clock and the sequence number in step, and
/// checks what it is given (the key, the value's size and encodability). Every change appends a
/// journal entry and deletes the entry it supersedes, so the journal holds one entry per key.
package final class ReplicaTransaction: ReplicaRows {
    package let txn: Transaction
    package let layout: StoreLayout
    package let path: String
    /// The replica being written.
    package let replica: ReplicaID
    /// The wall clock (milliseconds since 1970) read when this transaction began.
    package let wallClockMilliseconds: UInt64
    private let options: Store.Options
    private let localSource: ChangeSource
    private var state: ReplicaState
    private let initialState: ReplicaState
    /// How many records this transaction changed.
    package private(set) var changeCount = 0

    init(txn: Transaction, core: ReplicaCore, nowMilliseconds: UInt64) throws {
        self.txn = txn
        self.layout = core.layout
        self.path = core.path
        self.replica = core.replicaID
        self.options = core.options
        self.localSource = .process(token: ReplicaCore.processToken)
        self.wallClockMilliseconds = nowMilliseconds
        self.state = try ReplicaState.load(txn, core.layout)
        self.initialState = state
    }

    /// The last journal seq this transaction has written (or found).
    package var lastSeq: UInt64 { state.seq }

    // MARK: - Local writes

    /// Stores `value` under `key` of `suite` with a fresh version that wins over what this replica held.
    @discardableResult
    package func set(_ value: Value, suite: String, key: String) throws -> Version {
        try Names.validateKey(key)
        let bytes = try ValueCodec.encode(value, key: key)
        guard bytes.count <= options.maxValueBytes else {
            throw StoreError.valueTooLarge(key: key, bytes: bytes.count, limit: options.maxValueBytes)
        }
        return try writeLocal(suite: suite, key: key, valueBytes: bytes)
    }

    /// Deletes `key` of `suite` with a tombstone (so the delete syncs); returns its version, or nil
    /// when the key held no value (nothing is written then).
    @discardableResult
    package func remove(suite: String, key: String) throws -> Version? {
        try Names.validateKey(key)
        guard let existing = try record(suite: suite, key: key), !existing.isTombstone else { return nil }
        return try writeLocal(suite: suite, key: key, valueBytes: nil)
    }

    /// Tombstones every key of `suite` that holds a value; returns how many.
    package func resetSuite(_ suite: String) throws -> Int {
        var live: [String] = []
        try scanRecords(suite: suite) { _, key, row in
            if !row.record.isTombstone { live.append(key) }
            return true
        }
        for key in live { try writeLocal(suite: suite, key: key, valueBytes: nil) }
        return live.count
    }

    /// The stored value of `key` (nil for none or a tombstone), decoded.
    package func value(suite: String, key: String) throws -> Value? {
        guard let record = try record(suite: suite, key: key) else { return nil }
        do { return try record.value() } catch {
            throw StoreError.damaged(path: path, reason: "the value of \(suite)/\(key) does not decode: \(error)")
        }
    }

    private func writeLocal(suite: String, key: String, valueBytes: [UInt8]?) throws -> Version {
        let recordKey = StoreLayout.recordKey(suite: suite, key: key)
        let existing = try rowHeader(recordKey, suite: suite, key: key)
        let (hlc, clock) = HybridClock.localWrite(nowMilliseconds: wallClockMilliseconds, clock: state.clock, existing: existing?.hlc,
                                                  maxDriftMilliseconds: options.maxClockDriftMilliseconds)
        state.clock = clock
        let version = Version(hlc: hlc, replica: replica)
        try put(recordKey, suite: suite, key: key, Record(version: version, valueBytes: valueBytes),
                source: localSource, replacingSeq: existing?.seq)
        return version
    }

    // MARK: - Merges

    /// Stores a remote `record` that the merge decided wins, journaled as coming from `peer`.
    /// `replacingSeq` is the journal seq of the local row it replaces (read while deciding), or nil
    /// when the key is new here.
    package func storeMerged(_ record: Record, suite: String, key: String, from peer: ReplicaID, replacingSeq: UInt64?) throws {
        try Names.validateKey(key)
        try put(StoreLayout.recordKey(suite: suite, key: key), suite: suite, key: key, record,
                source: .sync(peer: peer), replacingSeq: replacingSeq)
    }

    /// Advances the clock after seeing a remote `hlc`, never beyond `maxDriftMilliseconds` ahead of
    /// the wall clock; returns whether the remote version was beyond that bound (clock skew).
    package func observeRemote(hlc remote: UInt64, maxDriftMilliseconds: UInt64) -> Bool {
        let (clock, skewed) = HybridClock.merge(remote: remote, clock: state.clock, nowMilliseconds: wallClockMilliseconds,
                                                maxDriftMilliseconds: maxDriftMilliseconds)
        state.clock = clock
        return skewed
    }

    /// Forgets a tombstone: its row and its journal entry (tombstone collection decides when that is safe).
    package func dropTombstone(suite: String, key: String) throws {
        guard let row = try storedRecord(suite: suite, key: key), row.record.isTombstone else { return }
        try txn.delete(layout.records, StoreLayout.recordKey(suite: suite, key: key))
        try txn.delete(layout.journal, StoreLayout.seqKey(row.seq))
    }

    // MARK: - Rows and journal

    /// The seq and hlc of the row under `recordKey`, checked, without copying its value.
    private func rowHeader(_ recordKey: [UInt8], suite: String, key: String) throws -> (seq: UInt64, hlc: UInt64)? {
        guard let bytes = try txn.get(layout.records, recordKey) else { return nil }
        var reader = ByteReader(bytes)
        do {
            let (seq, header) = try StoredRow.readHeader(&reader)
            return (seq, header.hlc)
        } catch {
            throw StoreError.damaged(path: path, reason: "the record of \(suite)/\(key) does not decode: \(error)")
        }
    }

    private func put(_ recordKey: [UInt8], suite: String, key: String, _ record: Record, source: ChangeSource, replacingSeq: UInt64?) throws {
        if let replacingSeq { try txn.delete(layout.journal, StoreLayout.seqKey(replacingSeq)) }
        state.seq += 1
        let entry = JournalEntry(seq: state.seq, suite: suite, key: key, record: record, source: source)
        try txn.put(layout.records, recordKey, StoredRow(seq: state.seq, record: record).encoded)
        try txn.append(layout.journal, StoreLayout.seqKey(state.seq), entry.encoded)   // seqs only grow
        changeCount += 1
    }

    /// Saves the clock and seq when they moved (called by the core before it commits).
    func finish() throws {
        if state != initialState { try state.save(txn, layout) }
    }
}
