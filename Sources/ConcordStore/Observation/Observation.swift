/// Observing changes: an `AsyncSequence` for async code, a callback with a token for the rest.
///
/// What is promised: every key's latest committed value reaches every observer, in commit order,
/// whichever process or sync committed it. The journal delivers one entry per key, so an observer that
/// falls behind a burst of rewrites of one key receives the latest of them, not each one.
///
/// Buffering policy: each `AsyncSequence` keeps at most `Store.Options.observerBufferLimit`
/// undelivered changes (default 4,096). A consumer that falls further behind loses the oldest
/// buffered changes — never the writer's time or this process's memory. Every change carries its
/// journal `seq`, so a consumer that sees a gap can catch up with `store.journalEntries(after:)`.
/// Callbacks run one at a time, in commit order, on the store's delivery queue.
///
/// When the journal cannot be read (a damaged entry), an `AsyncSequence` throws the error and ends,
/// and a callback observation calls its `onError` (or hands the error to `UnhandledErrors`) and ends.
extension Store {
    /// Every change to this replica committed from when iteration starts, by any process or sync.
    ///
    /// ```swift
    /// for try await change in store.changes() { print(change.suite, change.key) }
    /// ```
    public func changes() -> ChangeStream { ChangeStream(core: core, suite: nil, key: nil, limit: options.observerBufferLimit) }

    /// Calls `handler` for the changes committed from now on (each key's latest, in commit order), until the token is cancelled or released.
    ///
    /// ```swift
    /// let token = try store.observe { change in print(change.suite, change.key) }
    /// ```
    ///
    /// - Parameters:
    ///   - onError: Called once if the journal cannot be read; observation ends then. When `nil`,
    ///     the error goes to `UnhandledErrors`.
    ///   - handler: Called with each change, one at a time, in commit order.
    /// - Returns: The token that keeps the observation alive.
    /// - Throws: `ConcordError` when observation cannot start (the notify file cannot be watched).
    public func observe(
        onError: (@Sendable (ConcordError) -> Void)? = nil,
        _ handler: @escaping @Sendable (Change) -> Void
    ) throws -> ObservationToken {
        try core.observe(suite: nil, key: nil, onError: onError, handler)
    }
}

extension Suite {
    /// Every change to this suite committed from when iteration starts.
    ///
    /// ```swift
    /// for try await change in suite.changes() { print(change.key) }
    /// ```
    public func changes() -> ChangeStream { ChangeStream(core: core, suite: name, key: nil, limit: store.options.observerBufferLimit) }

    /// Every change to `key` in this suite committed from when iteration starts.
    ///
    /// ```swift
    /// for try await change in suite.changes(for: "theme") { apply(change.effectiveValue) }
    /// ```
    ///
    /// - Parameter key: The key to observe.
    /// - Returns: A sequence that starts observing when iteration starts, ends when the iterating task
    ///   is cancelled, and throws an invalid key or an unreadable journal.
    public func changes(for key: String) -> ChangeStream { ChangeStream(core: core, suite: name, key: key, limit: store.options.observerBufferLimit) }

    /// Calls `handler` for the changes to this suite (or to `key`, if given; each key's latest, in commit order), until the token is cancelled or released.
    ///
    /// ```swift
    /// let token = try suite.observe("theme") { change in print(change.effectiveValue as Any) }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key to observe, or `nil` for every key of the suite.
    ///   - onError: Called once if the journal cannot be read; observation ends then. When `nil`,
    ///     the error goes to `UnhandledErrors`.
    ///   - handler: Called with each change, one at a time, in commit order.
    /// - Returns: The token that keeps the observation alive.
    /// - Throws: ``ConcordError`` `.invalidKey`, or `ConcordError` when observation cannot start.
    public func observe(
        _ key: String? = nil, onError: (@Sendable (ConcordError) -> Void)? = nil,
        _ handler: @escaping @Sendable (Change) -> Void
    ) throws -> ObservationToken {
        if let key { try Names.validateKey(key, inSuite: name) }
        return try core.observe(suite: name, key: key, onError: onError, handler)
    }
}

extension ReplicaCore {
    func observe(
        suite: String?, key: String?, onError: (@Sendable (ConcordError) -> Void)?,
        _ handler: @escaping @Sendable (Change) -> Void
    ) throws -> ObservationToken {
        let id = try hub.subscribe(
            suite: suite, key: key, deliver: handler,
            fail: { error in if let onError { onError(error) } else { UnhandledErrors.report(error) } })
        return ObservationToken { [hub] in hub.unsubscribe(id) }
    }
}

extension Store {
    /// Calls `body` after every commit to this replica from now on, by any process — cursor moves of a
    /// sync included, which change no key — until the token is released (the sync layer's waits for
    /// acknowledgements use it). `onError` is told once if the journal cannot be read.
    package func observeCommits(onError: @escaping @Sendable (ConcordError) -> Void, _ body: @escaping @Sendable () -> Void) throws -> ObservationToken {
        let id = try core.hub.subscribeCommits(body, fail: onError)
        return ObservationToken { [hub = core.hub] in hub.unsubscribe(id) }
    }
}

/// An `AsyncSequence` of changes that ends when the consuming task is cancelled, and throws when
/// observation cannot start or the journal cannot be read. Observation starts when iteration starts.
///
/// ```swift
/// for try await change in suite.changes(for: "theme") { print(change.effectiveValue as Any) }
/// ```
public struct ChangeStream: AsyncSequence, Sendable {
    public typealias Element = Change
    public typealias Failure = ConcordError
    let core: ReplicaCore
    let suite: String?
    let key: String?
    let limit: Int

    /// Delivers the changes one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Change, any Error>.Iterator

        public mutating func next() async throws(ConcordError) -> Change? {
            do { return try await base.next() } catch { throw Self.storeError(error) }
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ConcordError) -> Change? {
            do { return try await base.next(isolation: actor) } catch { throw Self.storeError(error) }
        }

        private static func storeError(_ error: any Error) -> ConcordError {
            error as? ConcordError ?? .io(path: "", reason: "observation failed: \(error)")
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        let (stream, continuation) = AsyncThrowingStream<Change, any Error>.makeStream(bufferingPolicy: .bufferingNewest(limit))
        if let key {
            do { try Names.validateKey(key, inSuite: suite) } catch {
                continuation.finish(throwing: error)
                return AsyncIterator(base: stream.makeAsyncIterator())
            }
        }
        do {
            let id = try core.hub.subscribe(
                suite: suite, key: key,
                deliver: { change in continuation.yield(change) },
                fail: { error in continuation.finish(throwing: error) })
            continuation.onTermination = { [hub = core.hub] _ in hub.unsubscribe(id) }
        } catch {
            continuation.finish(throwing: error)
        }
        return AsyncIterator(base: stream.makeAsyncIterator())
    }
}
