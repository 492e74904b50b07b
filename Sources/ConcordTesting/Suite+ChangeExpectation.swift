import Concord

/// Waiting for a change of a key, with a timeout: blocking, or async without holding a thread.
extension Suite {
    /// Starts observing `key` now and returns what to wait on for its next change (that satisfies
    /// `predicate`, when given). Make it before causing the change, then wait. Observers receive each
    /// key's latest value: a value overwritten before it was delivered may never be seen, so wait for
    /// the last one a test writes.
    ///
    /// ```swift
    /// let expectation = try suite.expectChange(of: "theme")
    /// try suite.set("dark", forKey: "theme")
    /// let change = try expectation.wait(timeout: .seconds(2))
    /// #expect(change.value == .string("dark"))
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key to observe.
    ///   - predicate: Which change to wait for. The default accepts the first.
    /// - Returns: The expectation; observation stops when it is released.
    /// - Throws: ``ConcordError`` `.invalidKey`, or `ConcordError` when observation cannot start.
    public func expectChange(of key: String, where predicate: @escaping @Sendable (Change) -> Bool = { _ in true }) throws -> ChangeExpectation {
        try ChangeExpectation(suite: self, key: key, where: predicate)
    }

    /// Starts observing `key` now and returns what to wait on for its next change, for a typed key.
    ///
    /// ```swift
    /// let launches = Key("launchCount", default: 0)
    /// let expectation = try suite.expectChange(of: launches)
    /// ```
    ///
    /// - Parameters:
    ///   - key: The typed key to observe (its name, in this suite).
    ///   - predicate: Which change to wait for. The default accepts the first.
    /// - Returns: The expectation; observation stops when it is released.
    /// - Throws: `ConcordError` when observation cannot start.
    public func expectChange<Value>(of key: Key<Value>, where predicate: @escaping @Sendable (Change) -> Bool = { _ in true }) throws -> ChangeExpectation {
        try expectChange(of: key.name, where: predicate)
    }

    /// Waits, without blocking a thread, for the next change of `key` committed from now on (by
    /// another task, process or sync).
    ///
    /// ```swift
    /// async let change = suite.nextChange(of: "theme", timeout: .seconds(5))
    /// ```
    ///
    /// Observation starts only when this runs, so a change committed before cannot be told apart
    /// from one before the call; to cause the change yourself, use `expectChange(of:)` first.
    ///
    /// - Parameters:
    ///   - key: The key to observe.
    ///   - timeout: How long to wait at most.
    ///   - predicate: Which change to wait for. The default accepts the first.
    /// - Returns: The first matching change.
    /// - Throws: ``ConcordError`` `.timedOut` when none arrived in time; `ConcordError` when observation failed.
    public func nextChange(of key: String, timeout: Duration, where predicate: @escaping @Sendable (Change) -> Bool = { _ in true }) async throws -> Change {
        try await expectChange(of: key, where: predicate).value(timeout: timeout)
    }
}
