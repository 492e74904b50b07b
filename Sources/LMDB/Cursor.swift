import CLMDB

/// A position in a database, valid only inside `Transaction.withCursor`.
/// Every key and value it returns is a copy.
///
/// ```swift
/// try txn.withCursor(db) { c in
///     var e = try c.first()
///     while let (k, v) = e { print(k, v); e = try c.next() }
/// }
/// ```
package final class Cursor {
    package typealias Entry = (key: [UInt8], value: [UInt8])
    let handle: OpaquePointer
    let database: Database
    let bounds: ValueBounds?
    private var closed = false
    /// Whether the cursor deleted an entry (its transaction may then have freed pages it allocated).
    private(set) var deleted = false

    init(handle: OpaquePointer, database: Database, bounds: ValueBounds?) {
        self.handle = handle
        self.database = database
        self.bounds = bounds
    }

    func close() {
        if !closed {
            C.cursorClose(handle)
            closed = true
        }
    }

    package func first() throws -> Entry? { try move(MDB_FIRST) }
    package func last() throws -> Entry? { try move(MDB_LAST) }
    package func next() throws -> Entry? { try move(MDB_NEXT) }
    package func previous() throws -> Entry? { try move(MDB_PREV) }

    /// The last entry, with at most the first `valuePrefix` bytes of its value (a header, without
    /// copying a large value).
    package func last(valuePrefix: Int) throws -> Entry? {
        var k = MDB_val()
        var v = MDB_val()
        let rc = C.cursorGet(handle, &k, &v, MDB_LAST)
        v.mv_size = min(v.mv_size, valuePrefix)
        return try finish(rc, k, v)
    }

    /// Moves to the first entry whose key is `>= key`.
    package func seek(atLeast key: [UInt8]) throws -> Entry? {
        try key.withUnsafeBytes { keyBytes in
            var k = MDB_val(mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
            var v = MDB_val()
            return try finish(C.cursorGet(handle, &k, &v, MDB_SET_RANGE), k, v)
        }
    }

    /// Removes the entry the cursor is on.
    package func deleteCurrent() throws {
        let rc = C.cursorDel(handle)
        guard rc == 0 else { throw LMDBError(code: rc, operation: "mdb_cursor_del in \(database.name)") }
        deleted = true
    }

    private func move(_ op: MDB_cursor_op) throws -> Entry? {
        var k = MDB_val()
        var v = MDB_val()
        return try finish(C.cursorGet(handle, &k, &v, op), k, v)
    }

    private func finish(_ rc: Int32, _ k: MDB_val, _ v: MDB_val) throws -> Entry? {
        if rc == MDB_NOTFOUND { return nil }
        guard rc == 0 else { throw LMDBError(code: rc, operation: "mdb_cursor_get in \(database.name)") }
        return (
            try ValueBounds.copy(k, within: bounds, what: "a key in \(database.name)"),
            try ValueBounds.copy(v, within: bounds, what: "a value in \(database.name)")
        )
    }
}
