import LMDB

/// Every error Concord throws: a ``code`` a program can switch on, a ``message`` a person can act
/// on, and where it happened — the ``operation``, ``suite``, ``key``, ``peer`` and ``path``, each
/// when it is known. An error never means something half done: the call that throws it changed
/// nothing (or, for a sync, merged whole batches only).
///
/// ```swift
/// do {
///     _ = try suite.get("launchCount", as: String.self)
/// } catch let error as ConcordError {
///     switch error.code {
///     case .typeMismatch: print("stored as another type:", error.message)
///     case .damaged: print("restore", error.path ?? "the store", "from a backup")
///     default: throw error
///     }
/// }
/// ```
public struct ConcordError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a program tells it apart. Each code says what calls for a different
    /// response; ``message`` says the particulars.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        // What a caller asked for that Concord refuses.

        /// A suite name outside 1–128 bytes of letters, digits, `.`, `_`, `-`.
        case invalidSuiteName
        /// A key outside 1–256 bytes of UTF-8, or one a write may not create (holding U+0000).
        case invalidKey
        /// A value the store cannot represent faithfully (NaN, nesting too deep, an unsupported type,
        /// an expiry that is not to come).
        case unsupportedValue
        /// An encoded value larger than the store's limit.
        case valueTooLarge
        /// The stored value has another type than the one asked for.
        case typeMismatch
        /// An operation or value the key's merge policy does not take (`increment` on a set, a `Bool` on a max key).
        case policyMismatch
        /// A write to the reserved suite (`_concord`), which holds declarations and schema versions.
        case reservedSuite
        /// A schema that cannot be applied (a migration to a version above the schema's, one version twice).
        case invalidSchema
        /// A replica name outside 1–64 bytes of UTF-8, or holding a control character.
        case invalidReplicaName
        /// An argument out of its range or form (a partition count, an account name or label, a
        /// connection string, a remote address).
        case invalidArgument
        /// ``Suite/restore(_:conflict:)-1buax`` was given a number outside the key's beaten writes.
        case noSuchConflict
        /// Both sides of a sync are one replica (the same directory, or a copy of a store directory).
        case sameReplica
        /// `ReplicaRecovery.rebuild(_:)` was asked to rebuild a replica that reads back whole.
        case nothingToRecover

        // The replica.

        /// The store was written by a newer Concord; nothing was changed.
        case newerFormat
        /// The replica holds the suite at a newer schema version than this program's.
        case newerSchema
        /// A migration step failed (a conversion threw); nothing of the migration was written.
        case migrationFailed
        /// The store's files are damaged or are not a Concord store (or a hub holds a row that
        /// cannot be read back).
        case damaged
        /// The directory or its files are unsafe to use (permissions, symlinks).
        case insecure
        /// An operating-system error outside the storage engine (creating the directory, a file).
        case io
        /// The storage engine (LMDB) failed.
        case storage
        /// A store call from inside an `update` or `claim` closure of the same replica, on the same
        /// thread: it would deadlock or read a stale value.
        case reentrantCall
        /// A write needs a version past the greatest any replica accepts.
        case versionExhausted

        // Encrypted suites.

        /// The suite is encrypted and this process holds no key for it: nothing of it can be read or
        /// written here (it still syncs and relays, sealed).
        case suiteKeyMissing
        /// The key this process holds for the suite is not the one the suite is encrypted with.
        case suiteKeyMismatch

        // Records, bundles and sessions from outside.

        /// A record from outside that no replica may store (a bad name, a value over the limit or
        /// that does not decode, a version or expiry past the bounds), named with its suite, key and seq.
        case refusedRecord
        /// Bytes that describe something impossible (bad counts, names or seqs; two entries for one key).
        case malformed
        /// A stream or file that ends in the middle of a frame or bundle.
        case truncated
        /// A checksum that does not match: the bytes were damaged on the way.
        case checksumMismatch
        /// A frame or bundle larger than the limits allow.
        case oversized
        /// A file that is not a Concord bundle.
        case notABundle
        /// A bundle of a newer format than this Concord reads.
        case newerBundle
        /// A bundle that cannot go into this replica (this very replica exported it).
        case wrongReplica
        /// A file that cannot be read (missing, a directory, no permission).
        case unreadable
        /// A file that cannot be written (its directory is missing or not writable, the disk is full).
        case unwritable

        // Peers.

        /// The peer speaks a newer sync protocol than this side.
        case newerProtocol
        /// The peer speaks an older sync protocol, which cannot prove its cursors.
        case olderProtocol
        /// The peer serves read-only and refused to merge.
        case readOnly
        /// The peer's replica refused the request (it cannot be opened, or the request is invalid).
        case refusedByPeer
        /// The peer's replica failed while merging or reading (a store error on its side).
        case peerStore
        /// The peer or hub cannot be reached, refused the login, or the connection dropped.
        case unreachable
        /// Nothing arrived in time: a silent peer, or a change a test waited for.
        case timedOut
        /// A peer had not acknowledged this replica's changes when the wait for it timed out.
        case notAcknowledged

        // The hub (ConcordHub).

        /// The database holds no hub schema (run `sync-tool hub init` first).
        case hubNotInitialized
        /// The hub's schema is newer than this client understands.
        case newerHubSchema
        /// The role logged in cannot see the account asked for.
        case accountNotVisible
        /// An account (or a role of that name) exists already.
        case accountExists
        /// The hub has no account of this name.
        case unknownAccount
        /// The change would take the hub account past a limit; the whole push was refused.
        case overQuota
        /// The hub's server refused or failed a statement.
        case hubRefused
        /// Live sync reached the hub through a pooler in transaction mode, where LISTEN cannot work.
        case transactionPooling
    }

    /// What went wrong.
    public let code: Code
    /// What went wrong and what to do about it, for a person: names the suite, key, peer or path.
    public let message: String
    /// What was being done, when a layer above the store says so: `"write"`, `"read"`, `"observe"`,
    /// `"sync"`, `"import"`.
    public package(set) var operation: String?
    /// The suite involved, when there is one.
    public package(set) var suite: String?
    /// The key involved, when there is one.
    public package(set) var key: String?
    /// The peer involved: a replica id, a remote address or a hub (never with a password).
    public package(set) var peer: String?
    /// The store directory, bundle or file involved.
    public package(set) var path: String?
    /// Where a refused record was in the journal (or hub) it came from.
    public package(set) var seq: UInt64?
    /// The operating system's or LMDB's result code, for `.storage` and `.io`.
    package var systemCode: Int32?
    /// What was wrong with a refused record (`.refusedRecord`).
    package var refusal: RecordRefusal?
    /// The texts a message was made of where a layer above may know more to say: a `.typeMismatch`'s
    /// stored and requested types, an `.unsupportedValue`'s reason.
    package var parts: [String]?

    package init(
        _ code: Code, _ message: String, suite: String? = nil, key: String? = nil, peer: String? = nil, path: String? = nil,
        operation: String? = nil
    ) {
        self.code = code
        self.message = message
        self.suite = suite
        self.key = key
        self.peer = peer
        self.path = path
        self.operation = operation
    }

    /// The message.
    public var description: String { message }

    /// This error as met doing `operation` to `key` of `suite` (a wrapper's read, write or
    /// observation): the same code, the message prefixed "could not OPERATION "KEY" in suite "SUITE"".
    package func during(_ operation: String, suite: String, key: String) -> ConcordError {
        guard self.operation == nil else { return self }
        let named = at(suite: suite, key: key)
        var out = ConcordError(
            code, "could not \(operation) \"\(key)\" in suite \"\(suite)\": \(named.message)", suite: suite, key: key, peer: peer, path: path,
            operation: operation)
        out.seq = seq
        out.systemCode = systemCode
        out.refusal = refusal
        out.parts = named.parts
        return out
    }

    /// A bare type mismatch (as a `StorableValue` conformance throws it) named at `key` of `suite`;
    /// any other error as it is.
    package func at(suite: String, key: String) -> ConcordError {
        guard let parts else { return self }
        switch code {
        case .typeMismatch where self.suite == nil && parts.count == 2: return .typeMismatch(suite: suite, key: key, stored: parts[0], requested: parts[1])
        case .unsupportedValue where self.key != key && parts.count == 1: return .unsupportedValue(key: key, reason: parts[0])
        default: return self
        }
    }

    /// `error` as Concord's: itself when it is one, any other error the store met as `.io`.
    package static func wrapping(_ error: any Error) -> ConcordError {
        error as? ConcordError ?? ConcordError(.io, "\(error)")
    }

    /// `error` met converting a stored `value` to a `T`, as a `.typeMismatch`: a conformance's own
    /// (named at the suite and key later), or one naming the value's type and `T`.
    package static func reading<T: StorableValue>(_ error: any Error, stored value: Value, as type: T.Type, requestedSuffix: String = "") -> ConcordError {
        if let error = error as? ConcordError, error.code == .typeMismatch { return error }
        return .typeMismatch(stored: value.typeName, requested: T.storedTypeName + requestedSuffix)
    }

    /// `error` met converting a `T` to the value to store at `key`: an `.unsupportedValue` naming the key.
    package static func storing<T: StorableValue>(_ error: any Error, as type: T.Type, key: String) -> ConcordError {
        if let error = error as? ConcordError { return error.at(suite: "", key: key) }
        return .unsupportedValue(key: key, reason: "\(T.storedTypeName) cannot be stored: \(error)")
    }

    /// The error with `peer` named (a sync's peer, a remote's address).
    package func naming(peer: String) -> ConcordError {
        var out = self
        if out.peer == nil { out.peer = peer }
        return out
    }
}

/// What was wrong with a record from outside that the gate refused (`ConcordError.Code.refusedRecord`).
package enum RecordRefusal: Sendable, Hashable {
    /// The suite name breaks the store's rules.
    case suiteName
    /// The key breaks the store's rules (empty, too long, holding U+0000, not UTF-8).
    case key
    /// The value is larger than the store's limit.
    case valueSize
    /// The value or policy state does not decode: the bytes are damaged.
    case undecodable
    /// The value or policy state is plausibly a newer Concord's: upgrading would read it.
    case writtenByNewerConcord
    /// A version (or expiry) no honest clock produces.
    case version
}

// MARK: - The store's errors

extension ConcordError {
    /// A suite name outside the rules.
    package static func invalidSuiteName(_ name: String, reason: String) -> ConcordError {
        ConcordError(.invalidSuiteName, "invalid suite name \(quoted(name)): \(reason)", suite: name)
    }

    /// A key outside the rules.
    package static func invalidKey(_ key: String, reason: String) -> ConcordError {
        ConcordError(.invalidKey, "invalid key \(quoted(key)): \(reason)", key: key)
    }

    /// A replica name outside the rules.
    package static func invalidReplicaName(_ name: String, reason: String) -> ConcordError {
        ConcordError(.invalidReplicaName, "invalid replica name \(quoted(name)): \(reason) (a name is 1–64 bytes of UTF-8 without control characters)")
    }

    /// A value over the size limit.
    package static func valueTooLarge(key: String, bytes: Int, limit: Int) -> ConcordError {
        ConcordError(.valueTooLarge, "value for key \(quoted(key)) is \(bytes) bytes, over the limit of \(limit) bytes", key: key)
    }

    /// A value the store cannot represent.
    package static func unsupportedValue(key: String, reason: String) -> ConcordError {
        var error = ConcordError(.unsupportedValue, "cannot store the value for key \(quoted(key)): \(reason)", key: key)
        error.parts = [reason]
        return error
    }

    /// A stored value of another type than asked for, at `key` of `suite`.
    package static func typeMismatch(suite: String, key: String, stored: String, requested: String) -> ConcordError {
        var error = ConcordError(.typeMismatch, "key \(quoted(key)) in suite \(quoted(suite)) holds a \(stored), not a \(requested)", suite: suite, key: key)
        error.parts = [stored, requested]
        return error
    }

    /// A stored value that does not hold the type asked for — what a `StorableValue` conformance
    /// throws from `init(storedValue:)`; reads name the suite and key.
    ///
    /// <!-- assume: let storedValue = Value.string("warm") -->
    /// ```swift
    /// guard case .double(let celsius) = storedValue else { throw ConcordError.typeMismatch(stored: storedValue, requested: "temperature") }
    /// print(celsius)
    /// ```
    ///
    /// - Parameters:
    ///   - stored: The value found.
    ///   - requested: The type asked for, as a person names it.
    /// - Returns: The error, of code `.typeMismatch`.
    public static func typeMismatch(stored: Value, requested: String) -> ConcordError {
        typeMismatch(stored: stored.typeName, requested: requested)
    }

    /// A mismatch between a description of what is stored and the type asked for.
    package static func typeMismatch(stored: String, requested: String) -> ConcordError {
        var error = ConcordError(.typeMismatch, "the stored \(stored) is not a \(requested)")
        error.parts = [stored, requested]
        return error
    }

    /// A store of a newer format.
    package static func newerFormat(path: String, found: UInt32, supported: UInt32) -> ConcordError {
        ConcordError(
            .newerFormat,
            "the store at \(path) has format version \(found), newer than this Concord supports (\(supported)); upgrade Concord to open it (nothing was changed)",
            path: path)
    }

    /// Damaged files.
    package static func damaged(path: String, reason: String) -> ConcordError {
        ConcordError(.damaged, "the store at \(path) is damaged: \(reason)", path: path)
    }

    /// A record of `key` in `suite` whose stored bytes do not decode (damaged, or a value tag no
    /// release wrote): of code `.damaged`, naming the suite and key (see `RowReader`).
    package static func undecodableRecord(suite: String, key: String, path: String, _ error: any Error) -> ConcordError {
        var out = damaged(path: path, reason: "the record of \(suite)/\(key) does not decode: \(error)")
        out.suite = suite
        out.key = key
        return out
    }

    /// An unsafe directory.
    package static func insecure(path: String, reason: String) -> ConcordError {
        ConcordError(.insecure, "refusing to use \(path): \(reason)", path: path)
    }

    /// An operating-system error.
    package static func io(path: String, reason: String, code: Int32? = nil) -> ConcordError {
        var error = ConcordError(.io, "\(path): \(reason)", path: path)
        error.systemCode = code
        return error
    }

    /// A failure of LMDB (`code` is its result code or the `errno` it reported).
    package static func storage(code: Int32, operation: String, message: String) -> ConcordError {
        var error = ConcordError(.storage, "\(operation) failed: \(message) (code \(code))")
        error.systemCode = code
        return error
    }

    /// A second handle on a replica this process has open, asking for other options.
    package static func otherOptions(path: String, differences: [String]) -> ConcordError {
        ConcordError(
            .invalidArgument,
            "\(path) is open in this process with other options: \(differences.joined(separator: ", ")); options belong to the replica, so open it with the same options, or with none to share them",
            path: path, operation: "open")
    }

    /// A store call inside a write transaction of the same replica.
    package static func reentrantCall(path: String) -> ConcordError {
        ConcordError(
            .reentrantCall,
            "a store call on \(path) was made inside an update, batch or claim closure of the same store; the closure runs inside the store's write transaction, so it may only change the value it is given — make other store calls before or after it",
            path: path)
    }

    /// A write to the reserved suite.
    package static func reservedSuite(_ name: String) -> ConcordError {
        ConcordError(
            .reservedSuite,
            "suite \(quoted(name)) is reserved for merge-policy declarations and schema versions and cannot be written directly; declare a policy with Suite.declare or 'sync-tool policy', a schema with Store.suite(_:schema:)",
            suite: name)
    }

    /// A write the key's policy does not take.
    package static func policyMismatch(suite: String, key: String, policy: MergePolicy, reason: String) -> ConcordError {
        ConcordError(.policyMismatch, "key \(quoted(key)) in suite \(quoted(suite)) has the \(policy) merge policy: \(reason)", suite: suite, key: key)
    }

    /// A suite held at a newer schema.
    package static func newerSchema(suite: String, stored: Int, supported: Int) -> ConcordError {
        ConcordError(
            .newerSchema,
            "suite \(quoted(suite)) is at schema version \(stored) in this replica, newer than this program's \(supported); it refuses to write values of the older shape — upgrade the program (nothing was written)",
            suite: suite)
    }

    /// A schema that cannot be applied.
    package static func invalidSchema(suite: String, reason: String) -> ConcordError {
        ConcordError(.invalidSchema, "the schema given for suite \(quoted(suite)) is invalid: \(reason)", suite: suite)
    }

    /// A write that would need a version past the bound.
    package static func suiteKeyMissing(suite: String, path: String) -> ConcordError {
        ConcordError(
            .suiteKeyMissing,
            "suite \(quoted(suite)) is encrypted and this process holds no key for it: give its key (Store.Options.suiteKeys, suite.useKey, or --key-file) to read or write it",
            suite: suite, path: path)
    }

    package static func encryptedPrefixPolicy(suite: String, prefix: String, policy: MergePolicy) -> ConcordError {
        ConcordError(
            .policyMismatch,
            "the keys of suite \(quoted(suite)) starting with \(quoted(prefix)) cannot be declared \(policy): the suite is encrypted, and a prefix declaration, which syncs in the clear, would show the start of their names; declare each key on its own",
            suite: suite, key: prefix)
    }

    package static func sealedRecordRefused(suite: String, key: String, peer: ReplicaID, reason: String) -> ConcordError {
        var error = ConcordError(
            .refusedRecord,
            "a sealed record of suite \(quoted(suite)) from \(peer) was refused, and nothing of its batch was merged: \(reason) (the bytes are damaged or forged)",
            suite: suite, key: key, peer: "\(peer)")
        error.refusal = .undecodable
        return error
    }

    package static func encryptedDeviceLocal(suite: String, key: String) -> ConcordError {
        ConcordError(
            .invalidArgument,
            "key \(quoted(key)) in suite \(quoted(suite)) cannot be declared device-local or synced: the suite is encrypted, and such a declaration names its key in the clear (nothing was declared)",
            suite: suite, key: key)
    }

    package static func encryptedMigration(suite: String) -> ConcordError {
        ConcordError(
            .invalidSchema, "suite \(quoted(suite)) is encrypted: schema migrations do not run in an encrypted suite (nothing was migrated)", suite: suite)
    }

    package static func suiteKeyMismatch(suite: String, given: EncryptionKey, declared: [UInt8], path: String) -> ConcordError {
        let declaredText = declared.prefix(8).map { String($0, radix: 16).leftPadded(2) }.joined()
        return ConcordError(
            .suiteKeyMismatch,
            "the key given for suite \(quoted(suite)) (id \(given.idText)…) is not the key it is encrypted with (id \(declaredText)…): give that key",
            suite: suite, path: path)
    }

    package static func versionExhausted(suite: String, key: String, reason: String) -> ConcordError {
        ConcordError(.versionExhausted, "cannot write key \(quoted(key)) in suite \(quoted(suite)): \(reason) (nothing was written)", suite: suite, key: key)
    }

    /// A migration step that failed.
    package static func migrationFailed(suite: String, version: Int, key: String, reason: String) -> ConcordError {
        ConcordError(
            .migrationFailed,
            "the migration of suite \(quoted(suite)) to schema version \(version) failed at key \(quoted(key)): \(reason) (nothing was migrated)",
            suite: suite, key: key)
    }

    /// `text` quoted for a message: at most 80 characters, control characters escaped.
    package static func quoted(_ text: String) -> String {
        let shown = text.count > 80 ? String(text.prefix(80)) + "…" : text
        return "\""
            + shown.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0.value != 0x7f ? String($0) : "\\u{\(String($0.value, radix: 16))}" }.joined()
            + "\""
    }
}

/// Runs `body`, turning LMDB's errors into `.storage` errors (and damaged files into `.damaged`).
package func mapLMDBErrors<R>(path: String, _ body: () throws -> R) throws -> R {
    do {
        return try body()
    } catch let error as LMDBError {
        if error.code == LMDBError.invalid || error.code == LMDBError.corrupted || error.code == LMDBError.versionMismatch {
            throw ConcordError.damaged(path: path, reason: error.description)
        }
        throw ConcordError.storage(code: error.code, operation: error.operation, message: error.message)
    }
}
