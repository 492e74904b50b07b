import Foundation
import LMDB

/// A named group of typed values in a store — the analog of a `UserDefaults` suite.
///
/// ```swift
/// let suite = try store.suite("group.example.app")
/// suite.register(defaults: ["launchCount": 0])
/// try suite.set("Ada", forKey: "username")
/// let count = try suite.increment("launchCount")       // atomic across processes
/// let name = try suite.get("username", as: String.self) // "Ada"
/// ```
public struct Suite: Sendable {
    public let name: String
    public let store: Store

    init(name: String, store: Store) {
        self.name = name
        self.store = store
    }

    var core: ReplicaCore { store.core }

    // MARK: - Reading

    /// The stored value for `key`, or the registered default, or `nil`.
    /// Throws `StoreError.typeMismatch` when the value has another type than `T`.
    /// (Inlinable, so it is specialized for `T` where it is called: a typed read pays no generic dispatch.)
    @inlinable
    public func get<T: StorableValue>(_ key: String, as type: T.Type = T.self) throws -> T? {
        guard let value = try value(forKey: key) else { return nil }
        guard let typed = T(storedValue: value) else { throw typeMismatch(value, key: key, requested: T.typeDescription) }
        return typed
    }

    /// The stored value for `key` (falling back to the registered default), untyped.
    public func value(forKey key: String) throws -> Value? {
        if let stored = try storedValue(forKey: key) { return stored }
        return registeredDefault(forKey: key)
    }

    /// The stored value only, ignoring registered defaults.
    public func storedValue(forKey key: String) throws -> Value? {
        // Decodes the value straight from the row's bytes: the record's version is not needed here.
        guard let bytes = try storedRowBytes(forKey: key) else { return nil }
        var reader = ByteReader(bytes)
        let header: Record.Header
        do { header = try StoredRow.readHeader(&reader) } catch {
            throw StoreError.damaged(path: store.directory, reason: "the record of \(name)/\(key) does not decode: \(error)")
        }
        if header.isTombstone { return nil }
        do { return try ValueCodec.decodeRest(&reader) } catch {
            throw StoreError.damaged(path: store.directory, reason: "the value of \(name)/\(key) does not decode: \(error)")
        }
    }

    /// The stored record for `key`, tombstones included, with its version.
    public func record(forKey key: String) throws -> Record? {
        guard let bytes = try storedRowBytes(forKey: key) else { return nil }
        do { return try StoredRow.decode(bytes).record } catch {
            throw StoreError.damaged(path: store.directory, reason: "the record of \(name)/\(key) does not decode: \(error)")
        }
    }

    /// The bytes of the row stored for `key`, if any.
    private func storedRowBytes(forKey key: String) throws -> [UInt8]? {
        try Names.validateKey(key)
        let recordKey = StoreLayout.recordKey(suite: name, key: key)
        return try core.read { txn in try txn.get(core.layout.records, recordKey) }
    }

    /// Whether a value is stored for `key` (registered defaults do not count; tombstones do not either).
    public func contains(_ key: String) throws -> Bool {
        guard let record = try record(forKey: key) else { return false }
        return !record.isTombstone
    }

    /// The keys that hold a value, sorted by their UTF-8 bytes.
    public func keys() throws -> [String] {
        try records().compactMap { $0.record.isTombstone ? nil : $0.key }
    }

    /// Every stored value of the suite (registered defaults not included).
    public func snapshot() throws -> [String: Value] {
        var out: [String: Value] = [:]
        for (key, record) in try records() where !record.isTombstone {
            do { out[key] = try record.value() } catch {
                throw StoreError.damaged(path: store.directory, reason: "the value of \(name)/\(key) does not decode: \(error)")
            }
        }
        return out
    }

    /// Every record of the suite, tombstones included, in key order.
    public func records() throws -> [(key: String, record: Record)] {
        let prefix = StoreLayout.suitePrefix(name)
        return try core.read { txn in
            var out: [(String, Record)] = []
            try txn.scan(core.layout.records, from: prefix) { key, value in
                guard key.starts(with: prefix) else { return false }
                guard let (_, k) = StoreLayout.splitRecordKey(key) else { return true }
                do { out.append((k, try StoredRow.decode(value).record)) } catch {
                    throw StoreError.damaged(path: store.directory, reason: "the record of \(name)/\(k) does not decode: \(error)")
                }
                return true
            }
            return out
        }
    }

    // MARK: - Registered defaults (per process, in memory, never stored or synced)

    /// Registers values that reads fall back to when nothing is stored. They live in this process only.
    public func register(defaults: [String: any StorableValue]) {
        core.defaults.register(defaults.mapValues { $0.storedValue }, suite: name)
    }

    /// The default registered for `key` in this process, if any.
    public func registeredDefault(forKey key: String) -> Value? {
        core.defaults.value(suite: name, key: key)
    }

    // MARK: - Writing

    /// Stores `value` under `key`. Durable when it returns (unless the store was opened with relaxed durability).
    public func set<T: StorableValue>(_ value: T, forKey key: String) throws {
        let encoded = try encode(value.storedValue, forKey: key)
        try core.write { writer in try writer.writeLocal(suite: name, key: key, encodedValue: encoded) }
    }

    /// Deletes `key` (writes a tombstone, so the delete syncs). Reads then fall back to the registered default.
    public func remove(_ key: String) throws {
        try Names.validateKey(key)
        try core.write { writer in
            guard let existing = try writer.record(suite: name, key: key), !existing.isTombstone else { return }
            try writer.writeLocal(suite: name, key: key, encodedValue: nil)
        }
    }

    /// Tombstones every key of the suite in one transaction — the analog of `removePersistentDomain`.
    /// Returns how many keys were removed.
    @discardableResult
    public func reset() throws -> Int {
        let prefix = StoreLayout.suitePrefix(name)
        return try core.write { writer in
            var live: [String] = []
            try writer.txn.scan(core.layout.records, from: prefix) { key, value in
                guard key.starts(with: prefix) else { return false }
                if let (_, k) = StoreLayout.splitRecordKey(key), let row = try? StoredRow.decode(value), !row.record.isTombstone {
                    live.append(k)
                }
                return true
            }
            for key in live { try writer.writeLocal(suite: name, key: key, encodedValue: nil) }
            return live.count
        }
    }

    /// Applies many sets and removes in one transaction: all of them or none.
    ///
    /// ```swift
    /// try suite.batch { b in
    ///     try b.set(1, forKey: "a")
    ///     try b.remove("b")
    /// }
    /// ```
    public func batch(_ build: (inout SuiteBatch) throws -> Void) throws {
        var batch = SuiteBatch(suite: self)
        try build(&batch)
        let operations = batch.operations
        guard !operations.isEmpty else { return }
        try core.write { writer in
            for (key, encoded) in operations {
                if encoded == nil {
                    guard let existing = try writer.record(suite: name, key: key), !existing.isTombstone else { continue }
                }
                try writer.writeLocal(suite: name, key: key, encodedValue: encoded)
            }
        }
    }

    /// Reads, changes and writes `key` in one write transaction, so concurrent updates from
    /// any process never lose one another. `body` sees the stored value (or the registered
    /// default); setting it to `nil` deletes the key. `body` may run more than once.
    ///
    /// ```swift
    /// let next = try suite.update("count", as: Int.self) { n in n = (n ?? 0) + 1; return n! }
    /// ```
    @discardableResult
    public func update<T: StorableValue, R>(_ key: String, as type: T.Type = T.self, _ body: (inout T?) throws -> R) throws -> R {
        try Names.validateKey(key)
        return try core.write { writer in
            let existing = try writer.record(suite: name, key: key)
            var current: T?
            if let existing, !existing.isTombstone {
                current = try convert(try decode(existing, key: key), key: key)
            } else if let fallback = registeredDefault(forKey: key) {
                current = try convert(fallback, key: key)
            }
            let result = try body(&current)
            if let current {
                try writer.writeLocal(suite: name, key: key, encodedValue: try encode(current.storedValue, forKey: key))
            } else if let existing, !existing.isTombstone {
                try writer.writeLocal(suite: name, key: key, encodedValue: nil)
            }
            return result
        }
    }

    /// Atomically adds `amount` to the integer under `key` (absent counts as the registered default, or 0);
    /// returns the new value.
    @discardableResult
    public func increment(_ key: String, by amount: Int = 1) throws -> Int {
        try update(key, as: Int.self) { value in
            let (sum, overflow) = (value ?? 0).addingReportingOverflow(amount)
            guard !overflow else { throw StoreError.unsupportedValue(key: key, reason: "incrementing by \(amount) overflows Int") }
            value = sum
            return sum
        }
    }

    // MARK: - Helpers

    func encode(_ value: Value, forKey key: String) throws -> [UInt8] {
        try Names.validateKey(key)
        let encoded = try ValueCodec.encode(value, key: key)
        guard encoded.count <= store.options.maxValueBytes else {
            throw StoreError.valueTooLarge(key: key, bytes: encoded.count, limit: store.options.maxValueBytes)
        }
        return encoded
    }

    func convert<T: StorableValue>(_ value: Value, key: String) throws -> T {
        guard let typed = T(storedValue: value) else { throw typeMismatch(value, key: key, requested: T.typeDescription) }
        return typed
    }

    @usableFromInline
    func typeMismatch(_ value: Value, key: String, requested: String) -> StoreError {
        StoreError.typeMismatch(suite: name, key: key, stored: value.typeName, requested: requested)
    }

    private func decode(_ record: Record, key: String) throws -> Value {
        do {
            guard let value = try record.value() else { throw StoreError.damaged(path: store.directory, reason: "tombstone read as value") }
            return value
        } catch let error as ValueDecodingError {
            throw StoreError.damaged(path: store.directory, reason: "the value of \(name)/\(key) does not decode: \(error)")
        }
    }
}

/// Sets and removes collected for `Suite.batch`, validated before anything is written.
public struct SuiteBatch {
    let suite: Suite
    var operations: [(String, [UInt8]?)] = []

    public mutating func set<T: StorableValue>(_ value: T, forKey key: String) throws {
        operations.append((key, try suite.encode(value.storedValue, forKey: key)))
    }

    public mutating func remove(_ key: String) throws {
        try Names.validateKey(key)
        operations.append((key, nil))
    }
}
