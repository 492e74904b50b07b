import Foundation

/// The async writes: the same operations, errors and durability as the synchronous calls, with the
/// blocking part (the LMDB write transaction and its fsync, about half a millisecond) done on a
/// thread the store owns, so an `await` never holds a thread of Swift's cooperative pool.
///
/// Which to use: in async code — actors, UI code on the main actor, servers — `try await`, so a
/// commit's disk wait never stalls other tasks. In synchronous code (a command-line tool, a
/// background thread of your own) the synchronous call is fine and a little cheaper. Inside an
/// `async` function Swift picks the async overload, so write `try await suite.set(…)` there.
///
/// Cancellation: a call whose task is cancelled before its write starts throws `CancellationError`
/// and writes nothing; once the write has started it completes, and the call returns its result.
///
/// ```swift
/// try await suite.set("dark", forKey: "theme")
/// let launches = try await suite.increment("launchCount")
/// try await suite.update("recent", as: [String].self) { $0 = ($0 ?? []) + ["c"] }
/// ```
extension Suite {
    /// Stores `value` under `key` (an optional's `nil` removes it), durable when it returns — without
    /// blocking the cooperative pool. See the synchronous `set(_:forKey:)` for what is written.
    ///
    /// ```swift
    /// try await suite.set("dark", forKey: "theme")
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - key: The key (1–256 bytes of UTF-8).
    /// - Returns: The version written, or `nil` when nothing was.
    /// - Throws: What `set(_:forKey:)` throws; `CancellationError` when cancelled before the write started.
    @discardableResult
    public func set<T: StorableValue>(_ value: T, forKey key: String) async throws -> Version? {
        try await store.thread.run { [self] in try set(value, forKey: key) }
    }

    /// Stores `value` under `key` until `expiresAt` without blocking the cooperative pool; see the
    /// synchronous `set(_:forKey:expiresAt:)`.
    ///
    /// <!-- assume: let token = "eyJhbGciOi…" -->
    /// ```swift
    /// try await suite.set(token, forKey: "session", expiresAt: Date(timeIntervalSinceNow: 3600))
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value to store (not `nil`).
    ///   - key: The key (1–256 bytes of UTF-8).
    ///   - expiresAt: When the value stops reading; after now.
    /// - Returns: The version written.
    /// - Throws: What `set(_:forKey:expiresAt:)` throws; `CancellationError` when cancelled before the write started.
    @discardableResult
    public func set<T: StorableValue>(_ value: T, forKey key: String, expiresAt: Date) async throws -> Version? {
        try await store.thread.run { [self] in try set(value, forKey: key, expiresAt: expiresAt) }
    }

    /// Stores `value` under `key` for `expiresAfter` without blocking the cooperative pool; see the
    /// synchronous `set(_:forKey:expiresAfter:)`.
    ///
    /// ```swift
    /// try await suite.set(true, forKey: "snoozed", expiresAfter: .seconds(900))
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value to store (not `nil`).
    ///   - key: The key (1–256 bytes of UTF-8).
    ///   - expiresAfter: How long from now the value reads; above zero.
    /// - Returns: The version written.
    /// - Throws: What `set(_:forKey:expiresAfter:)` throws; `CancellationError` when cancelled before the write started.
    @discardableResult
    public func set<T: StorableValue>(_ value: T, forKey key: String, expiresAfter: Duration) async throws -> Version? {
        try await store.thread.run { [self] in try set(value, forKey: key, expiresAfter: expiresAfter) }
    }

    /// Deletes `key` (a tombstone, so the delete syncs) without blocking the cooperative pool.
    ///
    /// ```swift
    /// try await suite.remove("draft")
    /// ```
    ///
    /// - Parameter key: The key to delete.
    /// - Returns: The tombstone's version, or `nil` when the key held no value.
    /// - Throws: What `remove(_:)` throws; `CancellationError` when cancelled before the write started.
    @discardableResult
    public func remove(_ key: String) async throws -> Version? {
        try await store.thread.run { [self] in try remove(key) }
    }

    /// Tombstones every key of the suite in one transaction, without blocking the cooperative pool.
    ///
    /// - Returns: How many keys were removed.
    /// - Throws: What `reset()` throws; `CancellationError` when cancelled before the write started.
    @discardableResult
    public func reset() async throws -> Int {
        try await store.thread.run { [self] in try reset() }
    }

    /// Applies many sets and removes in one transaction, without blocking the cooperative pool.
    /// `build` runs once, here, before anything is written (it only collects the operations); the
    /// transaction runs on one of the store's threads.
    ///
    /// ```swift
    /// try await suite.batch { b in
    ///     try b.set(1, forKey: "a")
    ///     try b.remove("b")
    /// }
    /// ```
    ///
    /// - Parameter build: Collects the operations, through `SuiteBatch`'s `set` and `remove`.
    /// - Throws: What `build` throws (nothing is written), what the synchronous `batch` throws,
    ///   or `CancellationError` when cancelled before the write started.
    public func batch(_ build: (inout SuiteBatch) throws -> Void) async throws {
        var batch = SuiteBatch(suite: self)
        try build(&batch)
        let operations = batch.operations
        guard !operations.isEmpty else { return }
        try await store.thread.run { [self] in try commit(operations) }
    }

    /// Reads, changes and writes `key` in one write transaction (atomic across processes), without
    /// blocking the cooperative pool. `body` runs inside the transaction on one of the store's threads (or
    /// the thread leading a group commit it joins — never a thread of the pool), under the same rules
    /// as the synchronous `update`: it must not call the store, and it runs again from the start if
    /// the memory map had to grow or another write of its group commit failed, so it should only
    /// compute from its argument.
    ///
    /// ```swift
    /// let next = try await suite.update("count", as: Int.self) { n in n = (n ?? 0) + 1; return n! }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key to change.
    ///   - type: The type to read and write it as.
    ///   - body: Changes the current value in place (`nil`: nothing stored; set `nil` to delete).
    /// - Returns: What `body` returned (in the run that committed).
    /// - Throws: What `update` throws; `CancellationError` when cancelled before the write started.
    @discardableResult
    public func update<T: StorableValue, R: Sendable>(
        _ key: String, as type: T.Type = T.self,
        _ body: @escaping @Sendable (inout T?) throws -> R
    ) async throws -> R {
        try await store.thread.run { [self] in try update(key, as: type, body) }
    }

    /// Atomically adds `amount` to the integer under `key`, without blocking the cooperative pool.
    ///
    /// ```swift
    /// let launches = try await suite.increment("launchCount")
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key of the integer.
    ///   - amount: What to add. The default is 1.
    /// - Returns: The new value.
    /// - Throws: What `increment(_:by:)` throws; `CancellationError` when cancelled before the write started.
    @discardableResult
    public func increment(_ key: String, by amount: Int = 1) async throws -> Int {
        try await store.thread.run { [self] in try increment(key, by: amount) }
    }
}
