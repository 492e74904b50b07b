import CLMDB

extension C {
    static func txnID(_ txn: Txn) -> Int { Int(mdb_txn_id(txn)) }
}

extension Transaction {
    /// The id of the committed transaction this transaction reads (for a read transaction),
    /// or the id this write transaction will commit as (the corresponding C function is `mdb_txn_id`).
    ///
    /// A read transaction's snapshot id equals `Environment.lastCommittedTransactionID` exactly when
    /// no commit has happened since the snapshot was taken, so a value read here may be cached
    /// and reused for as long as the two still match:
    ///
    /// <!-- assume: let key: [UInt8] = Array("theme".utf8) -->
    /// ```swift
    /// let (bytes, snapshot) = try env.read { txn in (try txn.get(db, key), txn.snapshotID) }
    /// let stillCurrent = env.lastCommittedTransactionID == snapshot
    /// ```
    ///
    /// Comparing against a `lastCommittedTransactionID` read *before* the read transaction would not
    /// do: LMDB publishes the new meta page a moment before new readers can start on it.
    package var snapshotID: Int { C.txnID(handle) }
}
