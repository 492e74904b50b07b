/// The observations of a replica: its changes, a suite's, one key's, and a key's value (see
/// ``ValueObservation`` for what is promised and how each is consumed).
extension Store {
    /// Every change to this replica, by any process or sync, committed after observation starts.
    ///
    /// ```swift
    /// for try await change in store.changes() { print(change.suite, change.key) }
    /// let token = try store.changes().start { change in print(change.suite, change.key) }
    /// ```
    public func changes() -> ValueObservation<Change> { core.changes(suite: nil, key: nil) }

    /// Calls `body` after every commit to this replica from now on, by any process — cursor moves of a
    /// sync included, which change no key — until the token is released (the sync layer's waits for
    /// acknowledgements use it). `onError` is told once if the journal cannot be read.
    package func observeCommits(onError: @escaping @Sendable (ConcordError) -> Void, _ body: @escaping @Sendable () -> Void) throws -> ObservationToken {
        let id = try core.hub.subscribeCommits(body, fail: onError)
        return ObservationToken { [hub = core.hub] in hub.unsubscribe(id) }
    }
}

extension Suite {
    /// Every change to this suite committed after observation starts.
    ///
    /// ```swift
    /// for try await change in suite.changes() { print(change.key) }
    /// ```
    public func changes() -> ValueObservation<Change> { core.changes(suite: name, key: nil) }

    /// Every change to `key` in this suite committed after observation starts.
    ///
    /// ```swift
    /// for try await change in suite.changes(for: "theme") { apply(change.effectiveValue) }
    /// ```
    ///
    /// - Parameter key: The key to observe (an invalid one ends the observation with `.invalidKey`).
    /// - Returns: An observation of the key's changes (buffering `.bounded(4096)`).
    public func changes(for key: String) -> ValueObservation<Change> { core.changes(suite: name, key: key) }

    /// The value of `key` as a `T` now, then after each change — whoever made it (this process,
    /// another process, a sync) — as `updates(initial:)` in Defaults and `ValueObservation` in GRDB do.
    ///
    /// ```swift
    /// for try await theme in suite.values(of: "theme", as: String.self) {
    ///     apply(theme ?? "light")          // now, then as it changes
    /// }
    /// ```
    ///
    /// Each element is what `suite.get(key, as: T.self)` would return: the stored value, else the
    /// registered default, else `nil`. The key's latest committed value always arrives, in commit
    /// order; a consumer slower than the writes gets the newest of them (buffering `.latest`).
    /// Equal values are not filtered out: a write of the same value is delivered too.
    ///
    /// - Parameters:
    ///   - key: The key to follow.
    ///   - type: The type its values are read as.
    /// - Returns: An observation whose first element is the current value; it ends with
    ///   ``ConcordError`` `.invalidKey` for a bad key, and `.typeMismatch` when a value is not a `T`.
    public func values<T: StorableValue>(of key: String, as type: T.Type = T.self) -> ValueObservation<T?> {
        let suite = self
        return ValueObservation(
            core: core, suite: name, key: key, buffering: .latest,
            initial: { try suite.currentValue(of: key, as: T.self) },
            transform: { change in try change.effectiveValue.map { try suite.convert($0, key: key) as T } })
    }

    /// What a read of `key` returns now as a `T`, and the journal seq the read reflects.
    private func currentValue<T: StorableValue>(of key: String, as type: T.Type) throws -> (T?, seq: UInt64) {
        let (record, seq) = try core.snapshot { s in (try s.namedRecord(suite: name, key: key, keyring: core.keyring)?.record, s.lastSeq) }
        let options = core.options
        let stored = try record.flatMap { try rowReader(key).value(of: $0, now: options.clock.read) }
        guard let value = stored ?? registeredDefault(forKey: key) else { return (nil, seq) }
        return (try convert(value, key: key) as T, seq)
    }
}

extension ReplicaCore {
    /// The changes of `key` of `suite` (nil: every key, every suite), each delivered as it is.
    func changes(suite: String?, key: String?) -> ValueObservation<Change> {
        ValueObservation(core: self, suite: suite, key: key, buffering: .bounded(4096), initial: nil, transform: { $0 })
    }
}
