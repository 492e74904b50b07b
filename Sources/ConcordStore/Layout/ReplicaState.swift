import LMDB

/// The replica's clock and journal position, kept under `meta/state`: `[clock 8][last seq 8]`.
package struct ReplicaState: Equatable {
    package var clock: UInt64
    package var seq: UInt64

    static func load(_ txn: Transaction, _ layout: StoreLayout) throws -> ReplicaState {
        guard let bytes = try txn.get(layout.meta, StoreLayout.stateKey), bytes.count == 16 else {
            return ReplicaState(clock: 0, seq: 0)
        }
        var r = ByteReader(bytes)
        return ReplicaState(clock: try r.u64(), seq: try r.u64())
    }

    func save(_ txn: Transaction, _ layout: StoreLayout) throws {
        var out = ByteWriter(capacity: 16)
        out.u64(clock)
        out.u64(seq)
        try txn.put(layout.meta, StoreLayout.stateKey, out.bytes)
    }
}
