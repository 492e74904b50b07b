import LMDB

/// The replica's identity and format in `meta`: stamped once when the store is created, checked on every open.
enum StoreIdentity {
    /// Reads the format and replica id, stamping them on a new store. Refuses newer formats without writing.
    static func stamp(env: Environment, meta: Database, path: String) throws -> (ReplicaID, UInt32) {
        func read(_ txn: Transaction) throws -> (ReplicaID, UInt32)? {
            guard let formatBytes = try txn.get(meta, StoreLayout.formatKey) else { return nil }
            guard formatBytes.count == 4 else { throw StoreError.damaged(path: path, reason: "the format version is \(formatBytes.count) bytes, not 4") }
            var r = ByteReader(formatBytes)
            let format = try r.u32()
            guard format <= Store.formatVersion else { throw StoreError.newerFormat(path: path, found: format, supported: Store.formatVersion) }
            guard format >= 1 else { throw StoreError.damaged(path: path, reason: "format version 0") }
            guard let idBytes = try txn.get(meta, StoreLayout.replicaKey), let id = ReplicaID(bytes: idBytes) else {
                throw StoreError.damaged(path: path, reason: "the replica id is missing")
            }
            return (id, format)
        }
        if let found = try env.read(read) { return found }
        return try env.write { txn in
            if let found = try read(txn) { return found }   // another process created it first
            let id = ReplicaID.random()
            var format = ByteWriter(capacity: 4)
            format.u32(Store.formatVersion)
            try txn.put(meta, StoreLayout.formatKey, format.bytes)
            try txn.put(meta, StoreLayout.replicaKey, id.bytes)
            var created = ByteWriter(capacity: 8)
            created.u64(HybridClock.wallMilliseconds())
            try txn.put(meta, StoreLayout.createdKey, created.bytes)
            return (id, Store.formatVersion)
        }
    }
}
