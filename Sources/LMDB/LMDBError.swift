import CLMDB
#if canImport(Glibc)
import Glibc
#endif

/// An error reported by LMDB (or by the operating system through LMDB).
///
/// It carries the result code, the message `mdb_strerror` gives for it and the
/// operation that failed, so a person reading it knows what to do next.
///
/// ```swift
/// do { try env.write { txn in try txn.put(db, key, value) } }
/// catch let error as LMDBError where error.code == LMDBError.mapFull { ... }
/// ```
public struct LMDBError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The LMDB or `errno` result code.
    public let code: Int32
    /// The message `mdb_strerror` gives for `code`.
    public let message: String
    /// The operation that failed, e.g. `"mdb_txn_commit"` or `"open /path"`.
    public let operation: String

    public init(code: Int32, operation: String) {
        self.code = code
        self.operation = operation
        self.message = String(cString: mdb_strerror(code))
    }

    /// An error found by this layer rather than reported by LMDB: `message` says what is wrong.
    public init(code: Int32, operation: String, message: String) {
        self.code = code
        self.operation = operation
        self.message = message
    }

    public var description: String { "\(operation) failed: \(message) (code \(code))" }

    /// The map is full: the environment grows it and retries; seen by callers only when growing failed.
    public static let mapFull: Int32 = MDB_MAP_FULL
    /// Another process grew the map; the environment adopts the new size and retries.
    public static let mapResized: Int32 = MDB_MAP_RESIZED
    /// The file is not an LMDB file, or it is damaged.
    public static let invalid: Int32 = MDB_INVALID
    /// A page was found damaged.
    public static let corrupted: Int32 = MDB_CORRUPTED
    /// The file was written by an incompatible version of LMDB.
    public static let versionMismatch: Int32 = MDB_VERSION_MISMATCH
    /// Every reader slot is taken.
    public static let readersFull: Int32 = MDB_READERS_FULL
}
