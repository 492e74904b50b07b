import CLMDB

extension Transaction {
    /// Stores `value` under the 8-byte big-endian key of `key`, expected to sort after every key of `db`
    /// (`MDB_APPEND`): LMDB then skips the search and splits pages at the end, so a log keyed by a
    /// growing number (a journal's seq) stays dense. When `db` holds a key at or after it, it stores it
    /// as `put` does, so the result is the same.
    package func append(_ db: Database, key: UInt64, _ value: [UInt8]) throws {
        try checkWritable()
        let cursor = try writeCursor(db)
        var bigEndian = key.bigEndian
        let rc = withUnsafeMutableBytes(of: &bigEndian) { keyBytes in
            value.withUnsafeBytes { valueBytes in
                var k = MDB_val(mv_size: 8, mv_data: keyBytes.baseAddress)
                var v = MDB_val(mv_size: valueBytes.count, mv_data: UnsafeMutableRawPointer(mutating: valueBytes.baseAddress))
                return C.cursorPut(cursor, &k, &v, UInt32(MDB_APPEND))
            }
        }
        if rc == MDB_KEYEXIST { return try put(db, withUnsafeBytes(of: key.bigEndian) { Array($0) }, value) }
        guard rc == 0 else { throw LMDBError(code: rc, operation: "mdb_put (append) in \(db.name)") }
    }

    /// Removes the entry under the 8-byte big-endian key of `key`; returns whether it was there.
    @discardableResult
    package func delete(_ db: Database, key: UInt64) throws -> Bool {
        try checkWritable()
        let cursor = try writeCursor(db)
        var bigEndian = key.bigEndian
        let rc = withUnsafeMutableBytes(of: &bigEndian) { keyBytes in
            Self.delete(MDB_val(mv_size: 8, mv_data: keyBytes.baseAddress), through: cursor)
        }
        if rc == MDB_NOTFOUND { return false }
        guard rc == 0 else { throw LMDBError(code: rc, operation: "mdb_del in \(db.name)") }
        deleted = true
        return true
    }
}

extension Transaction {
    /// Stores `value` under `key` unless `db` holds that key already (`MDB_NOOVERWRITE`): one search
    /// that either inserts or finds. Returns nil when it stored `value`, else a copy of the value held
    /// (and nothing is written).
    package func insert(_ db: Database, _ key: [UInt8], _ value: [UInt8]) throws -> [UInt8]? {
        try checkWritable()
        let cursor = try writeCursor(db)
        var held = MDB_val()
        let rc = key.withUnsafeBytes { keyBytes in
            value.withUnsafeBytes { valueBytes in
                var k = MDB_val(mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
                held = MDB_val(mv_size: valueBytes.count, mv_data: UnsafeMutableRawPointer(mutating: valueBytes.baseAddress))
                return C.cursorPut(cursor, &k, &held, UInt32(MDB_NOOVERWRITE))
            }
        }
        if rc == 0 { return nil }
        guard rc == MDB_KEYEXIST else { throw LMDBError(code: rc, operation: "mdb_put (insert) in \(db.name)") }
        return try ValueBounds.copy(held, within: bounds, what: "a value in \(db.name)")
    }
}
