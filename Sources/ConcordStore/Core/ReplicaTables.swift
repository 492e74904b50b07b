import LMDB

/// The tables of a replica the storage layer keeps for the sync layer — peer cursors, the conflict
/// log, history marks — and the records table read row by row: the storage layer's row interface,
/// so the layers above it never reach LMDB. A row of these tables is bytes the sync layer encodes
/// (the architecture document gives each format); records are written only by the write core.
package enum ReplicaTable: Sendable {
    case records, peers, conflicts, marks
}

extension ReplicaRows {
    /// The row stored under `key` in `table`, if any.
    package func row(_ table: ReplicaTable, _ key: [UInt8]) throws -> [UInt8]? {
        try txn.get(layout.database(table), key)
    }

    /// Visits the rows of `table` in key order, from the first key at or after `start`, until `body` returns false.
    package func scanRows(_ table: ReplicaTable, from start: [UInt8]? = nil, _ body: (_ key: [UInt8], _ value: [UInt8]) throws -> Bool) throws {
        try txn.scan(layout.database(table), from: start, body)
    }

    /// The key of the last row of `table` (nil when it is empty).
    package func lastRowKey(_ table: ReplicaTable) throws -> [UInt8]? {
        var found: [UInt8]?
        try txn.withCursor(layout.database(table)) { cursor in found = try cursor.last()?.0 }
        return found
    }

    /// The highest seq of a history mark this replica pruned (0: none).
    package func marksPrunedThrough() throws -> UInt64 {
        guard let bytes = try txn.get(layout.meta, StoreLayout.marksPrunedKey) else { return 0 }
        guard bytes.count == 8, let seq = StoreLayout.decodeSeq(bytes) else {
            throw ConcordError.damaged(path: path, reason: "meta/marks-pruned is \(bytes.count) bytes, not 8")
        }
        return seq
    }
}

extension ReplicaTransaction {
    /// Stores `value` under `key` in `table` (not the records table: the write core writes records).
    package func putRow(_ table: ReplicaTable, _ key: [UInt8], _ value: [UInt8]) throws {
        precondition(table != .records, "records are written by the write core")
        try txn.put(layout.database(table), key, value)
    }

    /// Deletes the row under `key` in `table` (not the records table); false when there was none.
    @discardableResult
    package func deleteRow(_ table: ReplicaTable, _ key: [UInt8]) throws -> Bool {
        precondition(table != .records, "records are written by the write core")
        return try txn.delete(layout.database(table), key)
    }

    /// Records that marks up to `seq` were pruned.
    package func setMarksPrunedThrough(_ seq: UInt64) throws {
        try txn.put(layout.meta, StoreLayout.marksPrunedKey, StoreLayout.seqKey(seq))
    }
}

extension StoreLayout {
    func database(_ table: ReplicaTable) -> Database {
        switch table {
        case .records: records
        case .peers: peers
        case .conflicts: conflicts
        case .marks: marks
        }
    }
}
