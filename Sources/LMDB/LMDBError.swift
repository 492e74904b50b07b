import CLMDB

#if canImport(Glibc)
    import Glibc
#endif

/// An error reported by LMDB (or by the operating system through LMDB).
///
/// It carries the result code, the message `mdb_strerror` gives for it and the
/// operation that failed, so a person reading it knows what to do next.
///
/// <!-- assume: let key: [UInt8] = Array("k".utf8), value: [UInt8] = Array("v".utf8) -->
/// ```swift
/// do { try env.write { txn in try txn.put(db, key, value) } }
/// catch let error as LMDBError where error.code == LMDBError.mapFull { print("grow the map") }
/// ```
package struct LMDBError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The LMDB or `errno` result code.
    package let code: Int32
    /// The message `mdb_strerror` gives for `code`.
    package let message: String
    /// The operation that failed, e.g. `"mdb_txn_commit"` or `"open /path"`.
    package let operation: String

    package init(code: Int32, operation: String) {
        self.code = code
        self.operation = operation
        self.message = String(cString: mdb_strerror(code))
    }

    /// An error found by this layer rather than reported by LMDB: `message` says what is wrong.
    package init(code: Int32, operation: String, message: String) {
        self.code = code
        self.operation = operation
        self.message = message
    }

    package var description: String { "\(operation) failed: \(message) (code \(code))" }

    /// The map is full: the environment grows it and retries; seen by callers only when growing failed.
    package static let mapFull: Int32 = MDB_MAP_FULL
    /// Another process grew the map; the environment adopts the new size and retries.
    package static let mapResized: Int32 = MDB_MAP_RESIZED
    /// The file is not an LMDB file, or it is damaged.
    package static let invalid: Int32 = MDB_INVALID
    /// A page was found damaged.
    package static let corrupted: Int32 = MDB_CORRUPTED
    /// The file was written by an incompatible version of LMDB.
    package static let versionMismatch: Int32 = MDB_VERSION_MISMATCH
    /// Every reader slot is taken.
    package static let readersFull: Int32 = MDB_READERS_FULL
}
