/// Typed keys from async code: the writes of `Suite+Key` run on the store's own threads, so an
/// `await` never holds a thread of Swift's cooperative pool (see `Suite.set(_:forKey:)`'s async form).
///
/// ```swift
/// let launchCount = Key("launchCount", default: 0)
/// try await suite.update(launchCount) { $0 += 1 }
/// try await suite.set(.dark, for: Key("theme", default: Theme.system))
/// ```
extension Suite {
    /// Stores `value` under `key` durably (`nil` of an optional key removes it), without blocking the cooperative pool.
    ///
    /// <!-- assume: let theme = Key("theme", default: Theme.system) -->
    /// ```swift
    /// try await suite.set(.dark, for: theme)
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - key: The typed key to store it under.
    /// - Returns: The version written, or `nil` when nothing was.
    /// - Throws: A ``ConcordError`` (nothing is written); `CancellationError` when cancelled before the write started.
    @discardableResult
    public func set<T>(_ value: T, for key: Key<T>) async throws -> Version? {
        try await store.thread.run { [self] in try set(value, for: key) }
    }

    /// Removes the stored value of `key`, without blocking the cooperative pool; it reads as its default again.
    ///
    /// <!-- assume: let theme = Key("theme", default: Theme.system) -->
    /// ```swift
    /// try await suite.remove(theme)
    /// ```
    ///
    /// - Parameter key: The typed key whose value to remove.
    /// - Returns: The tombstone's version, or `nil` when the key held no value.
    /// - Throws: A ``ConcordError``; `CancellationError` when cancelled before the write started.
    @discardableResult
    public func remove<T>(_ key: Key<T>) async throws -> Version? {
        try await store.thread.run { [self] in try remove(key) }
    }

    /// Reads, changes and writes `key` in one write transaction, atomic across processes, without
    /// blocking the cooperative pool. `body` runs inside the transaction, off the pool (again from the
    /// start if the memory map had to grow or another write of its group commit failed).
    ///
    /// ```swift
    /// try await suite.update(Key("tags", default: [String]())) { $0.append("new") }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The typed key to change.
    ///   - body: Changes the current value (the key's default when nothing is stored) in place.
    /// - Returns: What `body` returned (in the run that committed).
    /// - Throws: A ``ConcordError``; `CancellationError` when cancelled before the write started.
    @discardableResult
    public func update<T, R: Sendable>(_ key: Key<T>, _ body: @escaping @Sendable (inout T) throws -> R) async throws -> R {
        try await store.thread.run { [self] in try update(key, body) }
    }
}
