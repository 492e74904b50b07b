import LMDB

/// Everything that can go wrong in the store, each with a message a person can act on.
///
/// ```swift
/// do { let n = try suite.get("name", as: Int.self) }
/// catch StoreError.typeMismatch(_, _, let stored, let requested) { print(stored, requested) }
/// ```
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A suite name outside 1–128 bytes of letters, digits, `.`, `_`, `-`.
    case invalidSuiteName(String, reason: String)
    /// A key outside 1–256 bytes of UTF-8, or one a write may not create (holding U+0000).
    case invalidKey(String, reason: String)
    /// An encoded value larger than the store's limit.
    case valueTooLarge(key: String, bytes: Int, limit: Int)
    /// A value the store cannot represent faithfully (NaN, nesting too deep, an unsupported type).
    case unsupportedValue(key: String, reason: String)
    /// The stored value has another type than the one asked for.
    case typeMismatch(suite: String, key: String, stored: String, requested: String)
    /// The store was written by a newer version of Concord; nothing was changed.
    case newerFormat(path: String, found: UInt32, supported: UInt32)
    /// The store's files are damaged or are not a Concord store.
    case damaged(path: String, reason: String)
    /// The directory or its files are unsafe to use (permissions, symlinks).
    case insecure(path: String, reason: String)
    /// An operating-system error outside the storage engine (creating the directory, the notify file).
    case io(path: String, reason: String)
    /// The storage engine (LMDB) failed: `code` is its result code or the `errno` it reported.
    case storage(code: Int32, operation: String, message: String)
    /// A store call was made from inside an `update`, `batch` or `claim` closure (or another write
    /// transaction) of the same replica, on the same thread: it would deadlock or read a stale value.
    case reentrantCall(path: String)
    /// A write to the reserved suite (`_concord`), which holds policy declarations and schema versions.
    case reservedSuite(String)
    /// An operation or value the key's merge policy does not take (`increment` on a set, a `Bool` on a max key).
    case policyMismatch(suite: String, key: String, policy: MergePolicy, reason: String)
    /// The replica holds the suite at a newer schema version than this program's: it refuses to write
    /// old-shape values. Nothing was written.
    case newerSchema(suite: String, stored: Int, supported: Int)
    /// A migration step failed (a conversion threw); nothing of the migration was written.
    case migrationFailed(suite: String, version: Int, key: String, reason: String)
    /// A schema that cannot be applied (a migration to a version above the schema's, twice the same version).
    case invalidSchema(suite: String, reason: String)
    /// A write needs a version past the greatest any replica accepts (the key's record, or the clock,
    /// is at that bound): it would wrap around to a version that loses. Nothing was written.
    case versionExhausted(suite: String, key: String, reason: String)
    /// A replica name outside 1–64 bytes of UTF-8, or holding a control character. Nothing was written.
    case invalidReplicaName(String, reason: String)

    public var description: String {
        switch self {
        case .invalidSuiteName(let name, let reason): return "invalid suite name \(quoted(name)): \(reason)"
        case .invalidKey(let key, let reason): return "invalid key \(quoted(key)): \(reason)"
        case .invalidReplicaName(let name, let reason):
            return "invalid replica name \(quoted(name)): \(reason) (a name is 1–64 bytes of UTF-8 without control characters)"
        case .valueTooLarge(let key, let bytes, let limit): return "value for key \(quoted(key)) is \(bytes) bytes, over the limit of \(limit) bytes"
        case .unsupportedValue(let key, let reason): return "cannot store the value for key \(quoted(key)): \(reason)"
        case .typeMismatch(let suite, let key, let stored, let requested):
            return "key \(quoted(key)) in suite \(quoted(suite)) holds a \(stored), not a \(requested)"
        case .newerFormat(let path, let found, let supported):
            return
                "the store at \(path) has format version \(found), newer than this Concord supports (\(supported)); upgrade Concord to open it (nothing was changed)"
        case .damaged(let path, let reason): return "the store at \(path) is damaged: \(reason)"
        case .insecure(let path, let reason): return "refusing to use \(path): \(reason)"
        case .io(let path, let reason): return "\(path): \(reason)"
        case .storage(let code, let operation, let message): return "\(operation) failed: \(message) (code \(code))"
        case .reentrantCall(let path):
            return
                "a store call on \(path) was made inside an update, batch or claim closure of the same store; the closure runs inside the store's write transaction, so it may only change the value it is given — make other store calls before or after it"
        case .reservedSuite(let name):
            return
                "suite \(quoted(name)) is reserved for merge-policy declarations and schema versions and cannot be written directly; declare a policy with Suite.declare or 'sync-tool policy', a schema with Store.suite(_:schema:)"
        case .policyMismatch(let suite, let key, let policy, let reason):
            return "key \(quoted(key)) in suite \(quoted(suite)) has the \(policy) merge policy: \(reason)"
        case .newerSchema(let suite, let stored, let supported):
            return
                "suite \(quoted(suite)) is at schema version \(stored) in this replica, newer than this program's \(supported); it refuses to write values of the older shape — upgrade the program (nothing was written)"
        case .invalidSchema(let suite, let reason):
            return "the schema given for suite \(quoted(suite)) is invalid: \(reason)"
        case .versionExhausted(let suite, let key, let reason):
            return "cannot write key \(quoted(key)) in suite \(quoted(suite)): \(reason) (nothing was written)"
        case .migrationFailed(let suite, let version, let key, let reason):
            return "the migration of suite \(quoted(suite)) to schema version \(version) failed at key \(quoted(key)): \(reason) (nothing was migrated)"
        }
    }

    private func quoted(_ s: String) -> String {
        let shown = s.count > 80 ? String(s.prefix(80)) + "…" : s
        return "\""
            + shown.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0.value != 0x7f ? String($0) : "\\u{\(String($0.value, radix: 16))}" }.joined()
            + "\""
    }
}

/// Runs `body`, turning LMDB's errors into `StoreError.storage` (and damaged files into `.damaged`).
package func mapLMDBErrors<R>(path: String, _ body: () throws -> R) throws -> R {
    do {
        return try body()
    } catch let error as LMDBError {
        if error.code == LMDBError.invalid || error.code == LMDBError.corrupted || error.code == LMDBError.versionMismatch {
            throw StoreError.damaged(path: path, reason: error.description)
        }
        throw StoreError.storage(code: error.code, operation: error.operation, message: error.message)
    }
}
