/// What one write of a key does, decided inside its write transaction from what the key holds
/// (see ``Suite/write(_:declaring:_:)``).
package enum KeyWrite: Sendable {
    /// Nothing: the key stays as it is.
    case keep
    /// Stores the value; with an expiry (wall-clock milliseconds since 1970), it reads as absent from then on.
    case set(Value, expiry: UInt64?)
    /// Writes a tombstone (nothing, when the key holds no value).
    case remove
    /// A read-modify-write's result (nil: remove): under a merge policy, the change is what merges.
    case update(Value?)
}

/// The key a write is deciding about, as its write transaction reads it.
package struct KeyInWrite {
    private let transaction: ReplicaTransaction
    /// The suite of the key.
    package let suite: String
    /// The key.
    package let key: String

    init(_ transaction: ReplicaTransaction, suite: String, key: String) {
        self.transaction = transaction
        self.suite = suite
        self.key = key
    }

    /// The transaction's wall clock (milliseconds since 1970).
    package var now: UInt64 { transaction.wallClockMilliseconds }
    /// The replica written.
    package var replica: ReplicaID { transaction.replica }
    /// The stored value as a read finds it now (nil for none, a tombstone or an expired value).
    package func value() throws -> Value? { try transaction.value(suite: suite, key: key) }
    /// The stored record, tombstones and expired values included.
    package func record() throws -> Record? { try transaction.namedRecord(suite: suite, key: key)?.record }
}

/// What a write of a key did: the decision's result, the version written (nil: nothing was), and
/// the journal seq of the commit that wrote it.
package struct KeyWritten<Result> {
    package let result: Result
    package let version: Version?
    package let seq: UInt64?
}

extension Suite {
    /// The one write path of a key: every set, remove and read-modify-write of one key — by name,
    /// through a `Key`, a wrapper, or their async forms — runs here, in one write transaction.
    /// With `policy`, the key's merge policy is declared in the same transaction; `decide` then
    /// says what to write from what the key holds (it runs inside the transaction, so it must not
    /// call the store, and it runs again when the transaction is retried).
    ///
    /// - Returns: What `decide` returned, the version written and its journal seq.
    /// - Throws: ``ConcordError`` (`.invalidKey`, `.valueTooLarge`, `.policyMismatch`, `.reservedSuite`,
    ///   a storage error…), or what `decide` throws; nothing is written then.
    package func write<R>(
        _ key: String, declaring policy: MergePolicy? = nil, _ decide: (KeyInWrite) throws -> (KeyWrite, R)
    ) throws -> KeyWritten<R> {
        try core.write { w in
            if let policy { try w.declare(policy, suite: name, key: key, isPrefix: false) }
            let (write, result) = try decide(KeyInWrite(w, suite: name, key: key))
            let version: Version?
            switch write {
            case .keep: version = nil
            case .set(let value, let expiry): version = try w.set(value, suite: name, key: key, expiry: expiry)
            case .remove: version = try w.remove(suite: name, key: key)
            case .update(let value): version = try w.update(suite: name, key: key, to: value) ? try w.namedRecord(suite: name, key: key)?.record.version : nil
            }
            return KeyWritten(result: result, version: version, seq: version == nil ? nil : w.lastSeq)
        }
    }
}
