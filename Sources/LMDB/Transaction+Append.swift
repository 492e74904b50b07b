import CLMDB

extension Transaction {
    /// Stores `value` under `key`, expected to sort after every key of `db` (`MDB_APPEND`): LMDB then
    /// skips the search and splits pages at the end, so a log keyed by a growing number stays dense.
    /// When `db` holds a key at or after `key`, it stores it as `put` does, so the result is the same.
    package func append(_ db: Database, _ key: [UInt8], _ value: [UInt8]) throws {
        try checkWritable()
        let rc = key.withUnsafeBytes { keyBytes in
            value.withUnsafeBytes { valueBytes in
                var k = MDB_val(mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
                var v = MDB_val(mv_size: valueBytes.count, mv_data: UnsafeMutableRawPointer(mutating: valueBytes.baseAddress))
                return C.put(handle, db.dbi, &k, &v, UInt32(MDB_APPEND))
            }
        }
        if rc == MDB_KEYEXIST { return try put(db, key, value) }
        guard rc == 0 else { throw LMDBError(code: rc, operation: "mdb_put (append) in \(db.name)") }
    }
}
