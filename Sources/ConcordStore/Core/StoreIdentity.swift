import LMDB

/// The replica's identity and format in `meta`: stamped once when the store is created, checked on
/// every open; a store of an older format is upgraded in place, in one write transaction, so a crash
/// at any point leaves it in the old format or the new one, never between.
enum StoreIdentity {
    /// Reads the format and replica id, stamping them on a new store and upgrading an older one.
    /// Refuses newer formats without writing.
    static func stamp(env: Environment, meta: Database, path: String) throws -> (ReplicaID, UInt32) {
        func read(_ txn: Transaction) throws -> (ReplicaID, UInt32)? {
            guard let formatBytes = try txn.get(meta, StoreLayout.formatKey) else { return nil }
            guard formatBytes.count == 4 else { throw ConcordError.damaged(path: path, reason: "the format version is \(formatBytes.count) bytes, not 4") }
            var r = ByteReader(formatBytes)
            let format = try r.u32()
            guard format <= Store.formatVersion else { throw ConcordError.newerFormat(path: path, found: format, supported: Store.formatVersion) }
            guard format >= 1 else { throw ConcordError.damaged(path: path, reason: "format version 0") }
            guard let idBytes = try txn.get(meta, StoreLayout.replicaKey), let id = ReplicaID(bytes: idBytes) else {
                throw ConcordError.damaged(path: path, reason: "the replica id is missing")
            }
            return (id, format)
        }
        // The result comes out through a local, not as the read's generic result: an optional tuple
        // would make a fresh process instantiate its type metadata on every open.
        var current: (ReplicaID, UInt32)?
        try env.read { txn in current = try read(txn) }
        if let found = current, found.1 == Store.formatVersion { return found }
        var upgraded = false
        let found = try env.write { txn -> (ReplicaID, UInt32) in
            upgraded = false
            if let (id, format) = try read(txn) { // another process created it first, or it is older
                if format < Store.formatVersion {
                    FormatUpgrade.checkpoint(.began)
                    try FormatUpgrade.upgrade(txn, meta: meta, from: format, path: path)
                    try writeFormat(txn, meta: meta)
                    FormatUpgrade.checkpoint(.stamped)
                    upgraded = true
                }
                return (id, Store.formatVersion)
            }
            let id = ReplicaID.random()
            try writeFormat(txn, meta: meta)
            try txn.put(meta, StoreLayout.replicaKey, id.bytes)
            var created = ByteWriter(capacity: 8)
            created.u64(HybridClock.wallMilliseconds())
            try txn.put(meta, StoreLayout.createdKey, created.bytes)
            return (id, Store.formatVersion)
        }
        if upgraded { FormatUpgrade.checkpoint(.committed) }
        return found
    }

    private static func writeFormat(_ txn: Transaction, meta: Database) throws {
        var format = ByteWriter(capacity: 4)
        format.u32(Store.formatVersion)
        try txn.put(meta, StoreLayout.formatKey, format.bytes)
    }
}
