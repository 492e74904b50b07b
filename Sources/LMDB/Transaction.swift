import CLMDB

/// A read or write transaction, valid only inside the closure that received it
/// (`Environment.read` / `Environment.write`). Every byte it returns is a copy,
/// so nothing outlives the transaction.
///
/// ```swift
/// let value = try env.read { txn in try txn.get(db, Array("k".utf8)) }
/// ```
package final class Transaction {
    let handle: OpaquePointer
    /// Whether this transaction may only read.
    package let isReadOnly: Bool
    var isOpen = true
    /// Whether this write transaction deleted anything (so it may have freed pages it allocated).
    var deleted = false
    /// Where keys and values may be copied from (nil when the mapping could not be found).
    let bounds: ValueBounds?

    init(handle: OpaquePointer, isReadOnly: Bool, bounds: ValueBounds?) {
        self.handle = handle
        self.isReadOnly = isReadOnly
        self.bounds = bounds
    }

    /// The value stored under `key`, or `nil` when there is none (`MDB_NOTFOUND`).
    package func get(_ db: Database, _ key: [UInt8]) throws -> [UInt8]? {
        try get(db, key, valuePrefix: Int.max)
    }

    /// At most the first `valuePrefix` bytes of the value under `key` (a header, without copying a
    /// large value), or `nil` when there is none.
    package func get(_ db: Database, _ key: [UInt8], valuePrefix: Int) throws -> [UInt8]? {
        try checkOpen()
        return try key.withUnsafeBytes { keyBytes -> [UInt8]? in
            var k = MDB_val(mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
            var v = MDB_val()
            let rc = C.get(handle, db.dbi, &k, &v)
            if rc == MDB_NOTFOUND { return nil }
            guard rc == 0 else { throw LMDBError(code: rc, operation: "mdb_get in \(db.name)") }
            v.mv_size = min(v.mv_size, valuePrefix)
            return try ValueBounds.copy(v, within: bounds, what: "a value in \(db.name)")
        }
    }

    /// Stores `value` under `key`, replacing what was there.
    package func put(_ db: Database, _ key: [UInt8], _ value: [UInt8]) throws {
        try checkWritable()
        let rc = key.withUnsafeBytes { keyBytes in
            value.withUnsafeBytes { valueBytes in
                var k = MDB_val(mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
                var v = MDB_val(mv_size: valueBytes.count, mv_data: UnsafeMutableRawPointer(mutating: valueBytes.baseAddress))
                return C.put(handle, db.dbi, &k, &v, 0)
            }
        }
        guard rc == 0 else { throw LMDBError(code: rc, operation: "mdb_put in \(db.name)") }
    }

    /// Removes `key`; returns whether it was there.
    @discardableResult
    package func delete(_ db: Database, _ key: [UInt8]) throws -> Bool {
        try checkWritable()
        let rc = key.withUnsafeBytes { keyBytes in
            var k = MDB_val(mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
            return C.del(handle, db.dbi, &k)
        }
        if rc == MDB_NOTFOUND { return false }
        guard rc == 0 else { throw LMDBError(code: rc, operation: "mdb_del in \(db.name)") }
        deleted = true
        return true
    }

    /// Removes every entry of `db` (the database itself stays).
    package func removeAll(_ db: Database) throws {
        try checkWritable()
        deleted = true
        let rc = C.drop(handle, db.dbi)
        guard rc == 0 else { throw LMDBError(code: rc, operation: "mdb_drop \(db.name)") }
    }

    /// Statistics of `db` as this transaction sees it.
    package func statistics(_ db: Database) throws -> DatabaseStatistics {
        try checkOpen()
        let (rc, st) = C.stat(handle, db.dbi)
        guard rc == 0 else { throw LMDBError(code: rc, operation: "mdb_stat \(db.name)") }
        return DatabaseStatistics(
            entries: Int(st.ms_entries), depth: Int(st.ms_depth),
            pages: Int(st.ms_branch_pages + st.ms_leaf_pages + st.ms_overflow_pages),
            pageSize: Int(st.ms_psize))
    }

    /// Runs `body` with a cursor over `db`; the cursor is closed when `body` returns.
    package func withCursor<R>(_ db: Database, _ body: (Cursor) throws -> R) throws -> R {
        try checkOpen()
        var raw: OpaquePointer?
        let rc = C.cursorOpen(handle, db.dbi, &raw)
        guard rc == 0, let raw else { throw LMDBError(code: rc, operation: "mdb_cursor_open \(db.name)") }
        let cursor = Cursor(handle: raw, database: db, bounds: bounds)
        defer {
            if cursor.deleted { deleted = true }
            cursor.close()
        }
        return try body(cursor)
    }

    /// Visits the entries of `db` in key order, starting at the first key `>= start`,
    /// until `body` returns `false`.
    package func scan(_ db: Database, from start: [UInt8]? = nil, _ body: (_ key: [UInt8], _ value: [UInt8]) throws -> Bool) throws {
        try withCursor(db) { cursor in
            var entry = try start.map { try cursor.seek(atLeast: $0) } ?? cursor.first()
            while let (key, value) = entry {
                guard try body(key, value) else { return }
                entry = try cursor.next()
            }
        }
    }

    func checkOpen() throws {
        guard isOpen else { throw LMDBError(code: invalidArgumentCode, operation: "use of a finished transaction") }
    }
    func checkWritable() throws {
        try checkOpen()
        guard !isReadOnly else { throw LMDBError(code: permissionDeniedCode, operation: "write in a read-only transaction") }
    }
}

let invalidArgumentCode: Int32 = 22
let permissionDeniedCode: Int32 = 13

/// Counts LMDB reports for one database (`mdb_stat`).
package struct DatabaseStatistics: Sendable, Equatable {
    package let entries: Int
    package let depth: Int
    package let pages: Int
    package let pageSize: Int
}
