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
    /// A write transaction's cursor on each database it has read or written, indexed by the
    /// database's handle, opened on first use and closed when the transaction ends (`end`). Every
    /// get, put, insert, append and delete of a write transaction goes through it, so LMDB looks a key
    /// up from where the last operation left the cursor rather than from the root: a put after a get
    /// of the same key, keys in order and a log's appends find their page without a search.
    /// No other cursor of the transaction inserts into the database (`Cursor` only reads and
    /// deletes), so an appending cursor stays on the last page.
    /// Held as bit patterns (0: not opened yet): an `[Int]` is a type the runtime already has, where
    /// an array of optional pointers would make a fresh process build its metadata on its first write.
    private var writeCursors: [Int] = []

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
            let rc = isReadOnly ? C.get(handle, db.dbi, &k, &v) : C.cursorGet(try writeCursor(db), &k, &v, MDB_SET)
            if rc == MDB_NOTFOUND { return nil }
            guard rc == 0 else { throw LMDBError(code: rc, operation: "mdb_get in \(db.name)") }
            v.mv_size = min(v.mv_size, valuePrefix)
            return try ValueBounds.copy(v, within: bounds, what: "a value in \(db.name)")
        }
    }

    /// Stores `value` under `key`, replacing what was there.
    package func put(_ db: Database, _ key: [UInt8], _ value: [UInt8]) throws {
        try checkWritable()
        let cursor = try writeCursor(db)
        let rc = key.withUnsafeBytes { keyBytes in
            value.withUnsafeBytes { valueBytes in
                var k = MDB_val(mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
                var v = MDB_val(mv_size: valueBytes.count, mv_data: UnsafeMutableRawPointer(mutating: valueBytes.baseAddress))
                return C.cursorPut(cursor, &k, &v, 0)
            }
        }
        guard rc == 0 else { throw LMDBError(code: rc, operation: "mdb_put in \(db.name)") }
    }

    /// Removes `key`; returns whether it was there.
    @discardableResult
    package func delete(_ db: Database, _ key: [UInt8]) throws -> Bool {
        try checkWritable()
        let cursor = try writeCursor(db)
        let rc = key.withUnsafeBytes { keyBytes in
            var k = MDB_val(mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
            return Self.delete(k, through: cursor)
        }
        if rc == MDB_NOTFOUND { return false }
        guard rc == 0 else { throw LMDBError(code: rc, operation: "mdb_del in \(db.name)") }
        deleted = true
        return true
    }

    /// Deletes the entry under `key` through `cursor` (what `mdb_del` does with a cursor of its own).
    static func delete(_ key: MDB_val, through cursor: OpaquePointer) -> Int32 {
        var (k, v) = (key, MDB_val())
        let rc = C.cursorGet(cursor, &k, &v, MDB_SET)
        guard rc == 0 else { return rc }
        return C.cursorDel(cursor)
    }

    /// This write transaction's cursor on `db` (see `writeCursors`).
    func writeCursor(_ db: Database) throws -> OpaquePointer {
        let index = Int(db.dbi)
        if index < writeCursors.count, let cursor = OpaquePointer(bitPattern: writeCursors[index]) { return cursor }
        var raw: OpaquePointer?
        let rc = C.cursorOpen(handle, db.dbi, &raw)
        guard rc == 0, let raw else { throw LMDBError(code: rc, operation: "mdb_cursor_open \(db.name)") }
        while writeCursors.count <= index { writeCursors.append(0) }
        writeCursors[index] = Int(bitPattern: raw)
        return raw
    }

    /// Ends this transaction's use: closes its cursors (before LMDB commits or aborts it) and refuses
    /// any later call.
    func end() {
        isOpen = false
        for bits in writeCursors { if let cursor = OpaquePointer(bitPattern: bits) { C.cursorClose(cursor) } }
        writeCursors = []
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
