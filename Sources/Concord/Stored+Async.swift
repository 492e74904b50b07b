/// `$name`'s writes from async code, run on the store's own threads, so an `await` never holds a
/// thread of Swift's cooperative pool.
///
/// ```swift
/// try await profile.$launchCount.update { $0 += 1 }
/// try await profile.$username.set("Ada")
/// ```
extension Stored {
    /// Stores `value` durably, without blocking the cooperative pool.
    ///
    /// ```swift
    /// try await profile.$username.set("Ada")
    /// ```
    ///
    /// - Parameter value: The value to store.
    /// - Returns: The version written, or `nil` when nothing was.
    /// - Throws: A ``ConcordError`` (nothing is written); `CancellationError` when cancelled before the write started.
    @discardableResult
    public func set(_ value: T) async throws -> Version? {
        let reference = self.reference
        let policy = key.policy
        return try await reference.suite.store.thread.run { try reference.set(value, declaring: policy) }
    }

    /// Removes the stored value (the removal syncs), without blocking the cooperative pool.
    ///
    /// ```swift
    /// try await profile.$username.reset()
    /// ```
    ///
    /// - Returns: The tombstone's version, or `nil` when nothing was stored.
    /// - Throws: A ``ConcordError``; `CancellationError` when cancelled before the write started.
    @discardableResult
    public func reset() async throws -> Version? {
        let reference = self.reference
        return try await reference.suite.store.thread.run { try reference.remove() }
    }

    /// Reads, changes and writes the value in one write transaction, without blocking the
    /// cooperative pool. `body` runs inside the transaction, off the pool (again from the start if
    /// the memory map had to grow or another write of its group commit failed).
    ///
    /// ```swift
    /// try await profile.$launchCount.update { $0 += 1 }
    /// ```
    ///
    /// - Parameter body: Changes the current value (the default when nothing is stored) in place.
    /// - Returns: What `body` returned (in the run that committed).
    /// - Throws: A ``ConcordError``; `CancellationError` when cancelled before the write started.
    @discardableResult
    public func update<R: Sendable>(_ body: @escaping @Sendable (inout T) throws -> R) async throws -> R {
        let reference = self.reference
        let key = self.key
        return try await reference.suite.store.thread.run { try reference.update(default: key.defaultValue, declaring: key.policy, body) }
    }
}
