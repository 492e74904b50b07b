import LMDB

/// A replica seen through one read-only snapshot (``Store/read``). Valid only inside that closure.
package final class ReplicaSnapshot: ReplicaRows {
    package let txn: Transaction
    package let layout: StoreLayout
    package let path: String
    package let replica: ReplicaID
    package let lastSeq: UInt64
    /// The replica's hybrid-clock reading at this snapshot.
    package let clock: UInt64

    init(txn: Transaction, layout: StoreLayout, replica: ReplicaID, path: String) throws {
        self.txn = txn
        self.layout = layout
        self.replica = replica
        self.path = path
        let state = try ReplicaState.load(txn, layout)
        self.lastSeq = state.seq
        self.clock = state.clock
    }
}
