import Foundation
import LMDB

/// A named group of typed values in a store — the analog of a `UserDefaults` suite.
///
/// ```swift
/// let suite = try store.suite("group.example.app")
/// try suite.register(defaults: ["launchCount": 0])
/// try suite.set("Ada", forKey: "username")
/// let count = try suite.increment("launchCount")       // atomic across processes
/// let name = try suite.get("username", as: String.self) // "Ada"
/// ```
public struct Suite: Sendable {
    /// The suite's name.
    public let name: String
    /// The store holding the suite.
    public let store: Store

    init(name: String, store: Store) {
        self.name = name
        self.store = store
    }

    package var core: ReplicaCore { store.core }

    // MARK: - Reading

    /// The value of `key` as a `T`: the stored value, else the registered default, else `nil`.
    ///
    /// ```swift
    /// let name = try suite.get("username", as: String.self)
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key to read.
    ///   - type: The type to read it as.
    /// - Returns: The value, or `nil` when nothing is stored and no default is registered.
    /// - Throws: ``ConcordError`` `.typeMismatch` when the value is not a `T`; ``ConcordError`` `.invalidKey`;
    ///   ``ConcordError`` `.damaged` when the stored bytes do not decode.
    @inlinable
    public func get<T: StorableValue>(_ key: String, as type: T.Type = T.self) throws -> T? {
        guard let value = try value(forKey: key) else { return nil }
        // Converted as a `T`, not as the `T?` the return type would infer: `Optional<T>`'s metadata
        // and conformance would otherwise be instantiated on a fresh process's first get. The suffix
        // makes the error name the requested type as `T?`.
        let typed: T = try convert(value, key: key, requestedSuffix: "?")
        return typed
    }

    /// The stored value for `key` (falling back to the registered default), untyped.
    public func value(forKey key: String) throws -> Value? {
        if let stored = try storedValue(forKey: key) { return stored }
        return registeredDefault(forKey: key)
    }

    /// The stored value only, ignoring registered defaults.
    public func storedValue(forKey key: String) throws -> Value? {
        let stored = try storedRow(forKey: key)
        guard stored.isStored else { return nil }
        let options = core.options
        return try stored.reader.read(stored.bytes, now: options.clock.read).value
    }

    /// The stored record for `key`, tombstones and expired values included, with its version (and,
    /// for a value that expires, `expires`).
    ///
    /// ```swift
    /// if let version = try suite.record(forKey: "theme")?.version { print(version) }
    /// ```
    public func record(forKey key: String) throws -> Record? {
        let stored = try storedRow(forKey: key)
        guard stored.isStored else { return nil }
        return try stored.reader.row(stored.bytes).record
    }

    /// The bytes of the row stored for `key`, if any, the commit stamp of the snapshot they were read
    /// in, and the reader that decodes them: the one fetch of a key's row that every read of a suite
    /// makes. In an encrypted suite the row is the name's record opened (`SealedNameRecord`: its row
    /// and every replica's policy contribution, merged); without the suite's key the read is refused (`.suiteKeyMissing`). A process that holds no
    /// key at all looks the declaration up only when it finds no value under the name.
    func storedRow(forKey key: String) throws -> FetchedRow {
        try Names.validateKey(key, inSuite: name)
        // Out through locals rather than as the read's generic result, so the first get of a fresh
        // process does not instantiate `Optional<[UInt8]>`'s metadata.
        var bytes: [UInt8]?
        var snapshot = 0
        var sealing: SuiteSealing?
        let keyring = core.keyring
        try core.read { txn in
            snapshot = txn.snapshotID
            if keyring.isEmpty {
                bytes = try txn.get(core.layout.records, StoreLayout.recordKey(suite: name, key: key))
                if let found = bytes, !StoredRow.isTombstone(found) { return }
                if try SealDeclaration.keyID(txn, core.layout, suite: name, path: core.path) != nil {
                    throw ConcordError.suiteKeyMissing(suite: name, path: core.path)
                }
                return
            }
            sealing = try SealDeclaration.sealing(txn, core.layout, suite: name, keyring: keyring, path: core.path)
            guard let sealing else {
                bytes = try txn.get(core.layout.records, StoreLayout.recordKey(suite: name, key: key))
                return
            }
            bytes = try SealedNameRecord.read(txn, core.layout, name: key, sealing: sealing, path: core.path).map {
                StoredRow(seq: $0.seq, record: $0.record).encoded
            }
        }
        let reader = RowReader(suite: name, key: key, path: store.directory, opening: .byName(sealing))
        guard let bytes else { return FetchedRow(isStored: false, bytes: [], snapshot: snapshot, reader: reader) }
        return FetchedRow(isStored: true, bytes: bytes, snapshot: snapshot, reader: reader)
    }

    /// What `storedRow(forKey:)` fetched. A struct of plain fields rather than a tuple or an
    /// optional array: their metadata is built at run time, which a fresh process's first read would
    /// pay for.
    struct FetchedRow {
        /// Whether a row is stored for the key.
        var isStored: Bool
        /// The row's bytes (empty when none is stored).
        var bytes: [UInt8]
        /// The commit stamp of the snapshot the bytes were read in.
        var snapshot: Int
        /// The reader that decodes (and in an encrypted suite opens) the bytes.
        var reader: RowReader
    }

    /// The reader of `key`'s row in this suite (`RowReader`), for a suite in the clear.
    func rowReader(_ key: String) -> RowReader { RowReader(suite: name, key: key, path: store.directory) }

    /// Whether a value is stored for `key` (registered defaults do not count; tombstones and expired
    /// values do not either).
    public func contains(_ key: String) throws -> Bool {
        guard let record = try record(forKey: key) else { return false }
        return !record.readsAsAbsent(at: core.options.clock.read())
    }

    /// The keys that hold a value (not expired), sorted by their UTF-8 bytes.
    public func keys() throws -> [String] {
        let now = core.options.clock.read()
        return try records().compactMap { $0.record.readsAsAbsent(at: now) ? nil : $0.key }
    }

    /// Every stored value of the suite that has not expired (registered defaults not included).
    public func snapshot() throws -> [String: Value] {
        var out: [String: Value] = [:]
        let now = core.options.clock.read()
        for (key, record) in try records() where !record.readsAsAbsent(at: now) {
            out[key] = try rowReader(key).value(of: record, now: { now })
        }
        return out
    }

    /// Every record of the suite, tombstones and expired values included, in key order.
    public func records() throws -> [(key: String, record: Record)] {
        try core.snapshot { s in
            var out: [(String, Record)] = []
            try s.scanNamedRecords(suite: name, keyring: core.keyring) { key, row in
                out.append((key, row.record))
                return true
            }
            // An encrypted suite's rows are in the order of their row keys.
            if out.count > 1, try SealDeclaration.keyID(s.txn, s.layout, suite: name, path: s.path) != nil {
                out.sort { Array($0.0.utf8).lexicographicallyPrecedes($1.0.utf8) }
            }
            return out
        }
    }

    // MARK: - Registered defaults (per process, in memory, never stored or synced)

    /// Registers values that reads fall back to when nothing is stored. They live in this process
    /// only, are never stored or synced, and observers of those keys in this process are told.
    ///
    /// ```swift
    /// try suite.register(defaults: ["theme": "light", "fontSize": 14])
    /// ```
    ///
    /// - Parameter defaults: Values by key; registering a key again replaces its default.
    /// - Throws: when a value cannot be stored (a `Codable` value whose encoding fails).
    public func register(defaults: [String: any StorableValue]) throws {
        var values: [String: Value] = [:]
        for (key, value) in defaults {
            try Names.validateKey(key)
            values[key] = try value.storedValue()
        }
        core.defaults.register(values, suite: name)
    }

    /// The default registered for `key` in this process, if any.
    public func registeredDefault(forKey key: String) -> Value? {
        core.defaults.value(suite: name, key: key)
    }

    // MARK: - Writing

    /// Stores `value` under `key` (an optional's `nil` removes the key). Durable when it returns
    /// (unless the store was opened with relaxed durability).
    ///
    /// ```swift
    /// let version = try suite.set("dark", forKey: "theme")
    /// ```
    ///
    /// Under a merge policy, a set is what the policy makes of it: a counter's new value (taking back
    /// the increments this replica had seen), a max or min key's proposal, a set's new members.
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - key: The key (1–256 bytes of UTF-8).
    /// - Returns: The version written, or `nil` when nothing was (setting `nil` on a key that holds
    ///   nothing, or a max or min proposal that would not move the value).
    /// - Throws: ``ConcordError`` `.invalidKey`, `.valueTooLarge`, `.unsupportedValue`, `.policyMismatch` (a
    ///   value the key's policy does not take), `.reservedSuite`, `.newerSchema`, or a storage error;
    ///   nothing is written then.
    @discardableResult
    public func set<T: StorableValue>(_ value: T, forKey key: String) throws -> Version? {
        let stored = try storedForm(of: value, key: key)
        return try write(key) { _ in (stored.map { .set($0, expiry: nil) } ?? .remove, ()) }.version
    }

    /// Stores `value` under `key` until `expiresAt`: from then on the key reads as absent (its
    /// registered default, or nothing) on every replica that holds the record, observers are told
    /// it went, and tombstone collection drops it like a deletion. A later write replaces it like
    /// any other; the expiry travels with the record and never decides a merge.
    ///
    /// <!-- assume: let token = "eyJhbGciOi…" -->
    /// ```swift
    /// try suite.set(token, forKey: "session", expiresAt: Date(timeIntervalSinceNow: 3600))
    /// ```
    ///
    /// Only a last-writer-wins key's value can expire: a counter's, set's, max's or min's parts merge
    /// on without one.
    ///
    /// - Parameters:
    ///   - value: The value to store (not `nil`: an expiring removal means nothing).
    ///   - key: The key (1–256 bytes of UTF-8).
    ///   - expiresAt: When the value stops reading; after now (by the store's clock), at the latest
    ///     the end of the year 9999. Kept to the millisecond, rounded up.
    /// - Returns: The version written.
    /// - Throws: ``ConcordError`` `.unsupportedValue` for an expiry not after now (or a `nil` value),
    ///   `.policyMismatch` on a key with another policy than lww, and what `set(_:forKey:)` throws;
    ///   nothing is written then.
    @discardableResult
    public func set<T: StorableValue>(_ value: T, forKey key: String, expiresAt: Date) throws -> Version? {
        let seconds = expiresAt.timeIntervalSince1970
        guard seconds > 0, seconds.isFinite else {
            throw ConcordError.unsupportedValue(key: key, reason: "its expiry (\(expiresAt)) is not a time after 1970")
        }
        let milliseconds = min((seconds * 1000).rounded(.up), Double(UInt64.max / 2))
        return try set(value, forKey: key) { _ in UInt64(milliseconds) }
    }

    /// Stores `value` under `key` for `expiresAfter` (from now, by the store's clock); see
    /// `set(_:forKey:expiresAt:)`.
    ///
    /// ```swift
    /// try suite.set(true, forKey: "snoozed", expiresAfter: .seconds(15 * 60))
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value to store (not `nil`).
    ///   - key: The key (1–256 bytes of UTF-8).
    ///   - expiresAfter: How long from now the value reads; above zero. Kept to the millisecond, rounded up.
    /// - Returns: The version written.
    /// - Throws: What `set(_:forKey:expiresAt:)` throws; nothing is written then.
    @discardableResult
    public func set<T: StorableValue>(_ value: T, forKey key: String, expiresAfter: Duration) throws -> Version? {
        let (seconds, attoseconds) = expiresAfter.components
        guard seconds > 0 || (seconds == 0 && attoseconds > 0) else {
            throw ConcordError.unsupportedValue(key: key, reason: "it would expire after \(expiresAfter), not after a time to come")
        }
        let milliseconds = min((Double(seconds) * 1000 + Double(attoseconds) / 1e15).rounded(.up), Double(UInt64.max / 2))
        // Counted from the write's own clock reading, so time spent waiting for the write lock does not shorten it.
        return try set(value, forKey: key) { now in
            let (expiry, overflow) = now.addingReportingOverflow(UInt64(milliseconds))
            return overflow ? .max : expiry
        }
    }

    /// Stores an expiring value (see `set(_:forKey:expiresAt:)`) whose expiry `expiry` gives from the
    /// write transaction's wall clock (milliseconds since 1970).
    func set<T: StorableValue>(_ value: T, forKey key: String, expiry: (_ now: UInt64) -> UInt64) throws -> Version? {
        guard let stored = try storedForm(of: value, key: key) else {
            throw ConcordError.unsupportedValue(key: key, reason: "only a value can expire, not nil (remove the key instead)")
        }
        return try write(key) { k in (.set(stored, expiry: expiry(k.now)), ()) }.version
    }

    /// Deletes `key` (writes a tombstone, so the delete syncs). Reads then fall back to the registered default.
    ///
    /// ```swift
    /// try suite.remove("draft")
    /// ```
    ///
    /// - Parameter key: The key to delete.
    /// - Returns: The tombstone's version, or `nil` when the key held no value (nothing is written).
    /// - Throws: ``ConcordError`` `.invalidKey`, `.reservedSuite`, `.newerSchema`, or a storage error.
    @discardableResult
    public func remove(_ key: String) throws -> Version? {
        try write(key) { _ in (.remove, ()) }.version
    }

    /// Tombstones every key of the suite in one transaction — the analog of `removePersistentDomain`.
    ///
    /// ```swift
    /// try suite.reset()
    /// ```
    ///
    /// - Returns: How many keys were removed.
    /// - Throws: ``ConcordError`` `.reservedSuite`, `.newerSchema`, or a storage error; nothing is removed then.
    @discardableResult
    public func reset() throws -> Int {
        try core.write { w in try w.resetSuite(name) }
    }

    /// Applies many sets and removes in one transaction: all of them or none.
    /// `build` runs exactly once, before the transaction (it only collects the operations, so it is
    /// never rerun, even when the transaction is retried: after the memory map grew, or without a
    /// failed write of its group commit).
    ///
    /// ```swift
    /// try suite.batch { b in
    ///     try b.set(1, forKey: "a")
    ///     try b.remove("b")
    /// }
    /// ```
    ///
    /// - Parameter build: Collects the sets and removes; an invalid key or value throws here, before
    ///   anything is written.
    /// - Throws: What `build` throws, or what `set(_:forKey:)` and `remove(_:)` throw; nothing is written then.
    public func batch(_ build: (inout SuiteBatch) throws -> Void) throws {
        var batch = SuiteBatch(suite: self)
        try build(&batch)
        let operations = batch.operations
        guard !operations.isEmpty else { return }
        try commit(operations)
    }

    /// Writes a batch's operations in one transaction.
    func commit(_ operations: [(String, Value?)]) throws {
        try core.write { w in
            for (key, value) in operations {
                if let value { try w.set(value, suite: name, key: key) } else { try w.remove(suite: name, key: key) }
            }
        }
    }

    /// Reads, changes and writes `key` in one write transaction, so concurrent updates from any
    /// process never lose one another. `body` sees the stored value (or the registered default);
    /// setting it to `nil` deletes the key. Under a merge policy the change is what syncs — a
    /// counter's difference as an increment, a set's added and removed members — so concurrent
    /// updates on other replicas combine with it.
    ///
    /// `body` runs inside the store's write transaction: it must not call the store (that throws
    /// ``ConcordError`` `.reentrantCall`). When it runs more than once: it runs once per attempt, and the
    /// transaction is attempted again — `body` included, from the start, on a freshly read value —
    /// only when the store's memory map turned out too small while writing or committing (rolled
    /// back, the map grows), or when another write sharing its group commit threw (threads of this
    /// process writing at once share one commit; it is rolled back and runs again without that
    /// write). Nothing else reruns it: there is no optimistic retry on conflict — writers take turns
    /// on LMDB's write lock, so a concurrent update is simply waited for. So `body` should only
    /// compute from the value it is given, and not depend on its thread (in a shared commit it runs
    /// on the thread leading it, while this one waits); the run that commits is the one whose
    /// result is returned.
    ///
    /// ```swift
    /// let next = try suite.update("count", as: Int.self) { n in n = (n ?? 0) + 1; return n! }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key to change.
    ///   - type: The type to read and write it as.
    ///   - body: Changes the current value in place (`nil`: nothing stored; set `nil` to delete).
    /// - Returns: What `body` returns.
    /// - Throws: ``ConcordError`` `.typeMismatch` when the stored value is not a `T`, what `set(_:forKey:)`
    ///   throws, or what `body` throws; nothing is written then.
    @discardableResult
    public func update<T: StorableValue, R>(_ key: String, as type: T.Type = T.self, _ body: (inout T?) throws -> R) throws -> R {
        try Names.validateKey(key, inSuite: name)
        return try write(key) { k in
            var current: T?
            if let start = try k.value() ?? registeredDefault(forKey: key) { current = try convert(start, key: key) }
            let result = try body(&current)
            return (.update(try storedForm(of: current, key: key)), result)
        }.result
    }

    /// Atomically adds `amount` (negative to subtract) to the integer under `key`; absent counts as
    /// the registered default, or 0. On a `counter` key it is this replica's contribution, and every
    /// replica's increments add up when they sync; on an `lww` key it is atomic in this replica and
    /// last-writer-wins across replicas.
    ///
    /// ```swift
    /// let launches = try suite.increment("launchCount")
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key of the integer.
    ///   - amount: What to add. The default is 1.
    /// - Returns: The new value.
    /// - Throws: ``ConcordError`` `.typeMismatch` when the key holds something else than an `Int`;
    ///   `.policyMismatch` on a `set` key; `.unsupportedValue` when the sum overflows.
    @discardableResult
    public func increment(_ key: String, by amount: Int = 1) throws -> Int {
        try Names.validateKey(key, inSuite: name)
        let start = registeredDefault(forKey: key)
        return try core.write { w in try w.increment(suite: name, key: key, by: amount, start: start) }
    }

    // MARK: - Merge policies

    /// Declares how concurrent changes of `key` merge when replicas sync (`nil` removes the
    /// declaration). The declaration is stored in the replica and syncs with the data; of two
    /// different declarations made concurrently, the later one wins everywhere.
    ///
    /// ```swift
    /// try suite.declare(.counter, forKey: "launchCount")
    /// try suite.declare(.set, forKey: "tags")
    /// ```
    ///
    /// A key with values already stored keeps its value when its policy changes: it becomes the
    /// counter's starting value, the max's current value, the set's members.
    ///
    /// - Parameters:
    ///   - policy: The policy, or `nil` to remove the declaration.
    ///   - key: The key it applies to.
    /// - Throws: ``ConcordError`` `.invalidKey`, or a storage error; nothing is declared then.
    public func declare(_ policy: MergePolicy?, forKey key: String) throws {
        try core.write { w in try w.declare(policy, suite: name, key: key, isPrefix: false) }
    }

    /// Declares the policy of every key of the suite that starts with `prefix` (a key's own
    /// declaration, then the longest matching prefix, decide).
    ///
    /// ```swift
    /// try suite.declare(.max, forKeysWithPrefix: "highScore.")
    /// ```
    public func declare(_ policy: MergePolicy?, forKeysWithPrefix prefix: String) throws {
        try core.write { w in try w.declare(policy, suite: name, key: prefix, isPrefix: true) }
    }

    /// The policy a write of `key` follows now: its declaration (or its longest declared prefix's),
    /// else the policy its stored record merges by, else `.lww`.
    public func policy(forKey key: String) throws -> MergePolicy {
        try Names.validateKey(key, inSuite: name)
        return try core.snapshot { s in
            if name != ReservedSuite.name, let declared = try s.declaredPolicy(suite: name, key: key, keyring: core.keyring) { return declared }
            return try s.namedRecord(suite: name, key: key, keyring: core.keyring)?.record.policy ?? .lww
        }
    }

    /// The merge policies declared in this replica for keys of this suite, and for key prefixes
    /// (``declare(_:forKey:)``, ``declare(_:forKeysWithPrefix:)``, a ``Schema``'s migrations, or a
    /// peer's declaration that a sync brought).
    ///
    /// ```swift
    /// let declared = try suite.declaredPolicies()
    /// for (key, policy) in declared.keys { print(key, policy) }
    /// for (prefix, policy) in declared.prefixes { print(prefix + "…", policy) }
    /// ```
    ///
    /// - Returns: Each declared key's policy, and each declared prefix's.
    /// - Throws: ``ConcordError`` `.damaged` when a declaration does not decode.
    public func declaredPolicies() throws -> (keys: [String: MergePolicy], prefixes: [String: MergePolicy]) {
        var declared: (keys: [String: MergePolicy], prefixes: [String: MergePolicy]) = ([:], [:])
        for d in try policyDeclarations() {
            if d.isPrefix { declared.prefixes[d.key] = d.policy } else { declared.keys[d.key] = d.policy }
        }
        return declared
    }

    /// The policies declared for keys and key prefixes of this suite, with their versions.
    package func policyDeclarations() throws -> [PolicyDeclaration] {
        try store.policyDeclarations(suite: name)
    }

    // MARK: - Mapping

    /// `value` as the store holds it (nil: nothing stored), with errors naming the key.
    func storedForm<T: StorableValue>(of value: T, key: String) throws -> Value? {
        do { return try value.storedValue() } catch { throw ConcordError.storing(error, as: T.self, key: key) }
    }

    /// A stored value as a `T`, with a mismatch reported as `.typeMismatch` naming the suite and key;
    /// `requestedSuffix` follows `T`'s name in a mismatch a conformance did not describe itself.
    @usableFromInline
    func convert<T: StorableValue>(_ value: Value, key: String, requestedSuffix: String = "") throws -> T {
        do { return try T(storedValue: value) } catch {
            throw ConcordError.reading(error, stored: value, as: T.self, requestedSuffix: requestedSuffix).at(suite: name, key: key)
        }
    }
}

/// Sets and removes collected for ``Suite/batch(_:)-6dx66``, checked before anything is written.
///
/// ```swift
/// try suite.batch { b in try b.set("dark", forKey: "theme"); try b.remove("legacy") }
/// ```
public struct SuiteBatch {
    let suite: Suite
    var operations: [(String, Value?)] = []

    /// Sets `key` to `value` when the batch commits (an optional's `nil` removes it).
    public mutating func set<T: StorableValue>(_ value: T, forKey key: String) throws {
        try Names.validateKey(key, inSuite: suite.name)
        operations.append((key, try suite.storedForm(of: value, key: key)))
    }

    /// Removes `key` when the batch commits.
    public mutating func remove(_ key: String) throws {
        try Names.validateKey(key, inSuite: suite.name)
        operations.append((key, nil))
    }
}
