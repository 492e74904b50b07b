import LMDB

/// The replica's clock and journal position.
///
/// Since format 4 the journal's last entry carries them (its seq is the last seq, its header the
/// clock after it), so a commit that appends to the journal writes no other page for them. `meta/state`
/// (`[clock 8][last seq 8]`) holds them only when the journal's last entry does not: after a
/// transaction that moved the clock without journaling (a merge that kept every local record), or
/// that dropped the last entry (tombstone collection), and in stores of formats 1-3. Reading takes
/// the larger of the two, so either may lag behind the other.
package struct ReplicaState: Equatable {
    package var clock: UInt64
    package var seq: UInt64

    static func load(_ txn: Transaction, _ layout: StoreLayout) throws -> ReplicaState {
        var state = try saved(txn, layout) ?? ReplicaState(clock: 0, seq: 0)
        if let tail = try journalTail(txn, layout) {
            state.seq = max(state.seq, tail.seq)
            state.clock = max(state.clock, tail.clock ?? 0)
        }
        return state
    }

    /// What `meta/state` holds, if anything.
    private static func saved(_ txn: Transaction, _ layout: StoreLayout) throws -> ReplicaState? {
        guard let bytes = try txn.get(layout.meta, StoreLayout.stateKey), bytes.count == 16 else { return nil }
        var r = ByteReader(bytes)
        return ReplicaState(clock: try r.u64(), seq: try r.u64())
    }

    /// The seq of the journal's last entry and the clock it carries (nil for an entry of format 1, which
    /// carries none).
    static func journalTail(_ txn: Transaction, _ layout: StoreLayout) throws -> (seq: UInt64, clock: UInt64?)? {
        let last = try txn.withCursor(layout.journal) { try $0.last(valuePrefix: JournalEntry.clockPrefixSize) }
        guard let (key, value) = last else { return nil }
        guard let seq = StoreLayout.decodeSeq(key) else {
            throw LMDBError(
                code: LMDBError.corrupted, operation: "reading the journal's last entry",
                message: "its key is \(key.count) bytes, not 8")
        }
        return (seq, JournalEntry.clock(prefix: value))
    }

    /// Makes the state durable with the transaction: nothing to write when the journal's last entry carries it.
    func save(_ txn: Transaction, _ layout: StoreLayout) throws {
        if let tail = try Self.journalTail(txn, layout), tail.seq == seq, tail.clock == clock { return }
        var out = ByteWriter(capacity: 16)
        out.u64(clock)
        out.u64(seq)
        try txn.put(layout.meta, StoreLayout.stateKey, out.bytes)
    }
}
