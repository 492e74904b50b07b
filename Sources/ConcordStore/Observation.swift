/// Observing changes: an `AsyncSequence` for async code, a callback with a token for the rest.
///
/// Buffering policy: each `AsyncSequence` keeps at most `Store.Options.observerBufferLimit`
/// undelivered changes (default 4,096). A consumer that falls further behind loses the oldest
/// buffered changes — never the writer's time or this process's memory. Every change carries its
/// journal `seq`, so a consumer that sees a gap can catch up with `store.changes(since:)`.
/// Callbacks run one at a time, in commit order, on the store's delivery queue.
extension Store {
    /// Every change to this replica committed from now on, by any process or sync.
    ///
    /// ```swift
    /// for await change in store.changes() { print(change.suite, change.key) }
    /// ```
    public func changes() -> ChangeStream { ChangeStream(core: core, suite: nil, key: nil, limit: options.observerBufferLimit) }

    /// Calls `handler` for every change committed from now on, until the token is cancelled or released.
    public func observe(_ handler: @escaping @Sendable (Change) -> Void) throws -> ObservationToken {
        try core.observe(suite: nil, key: nil, handler)
    }
}

extension Suite {
    /// Every change to this suite committed from now on.
    public func changes() -> ChangeStream { ChangeStream(core: core, suite: name, key: nil, limit: store.options.observerBufferLimit) }

    /// Every change to `key` in this suite committed from now on.
    ///
    /// ```swift
    /// for await change in suite.changes(for: "theme") { apply(change.effectiveValue) }
    /// ```
    public func changes(for key: String) -> ChangeStream { ChangeStream(core: core, suite: name, key: key, limit: store.options.observerBufferLimit) }

    /// Calls `handler` for every change to this suite (or to `key`, if given), until the token is cancelled or released.
    ///
    /// ```swift
    /// let token = try suite.observe("theme") { change in print(change.effectiveValue as Any) }
    /// ```
    public func observe(_ key: String? = nil, _ handler: @escaping @Sendable (Change) -> Void) throws -> ObservationToken {
        if let key { try Names.validateKey(key) }
        return try core.observe(suite: name, key: key, handler)
    }
}

extension ReplicaCore {
    func observe(suite: String?, key: String?, _ handler: @escaping @Sendable (Change) -> Void) throws -> ObservationToken {
        let id = try hub.subscribe(suite: suite, key: key, deliver: handler)
        return ObservationToken { [hub] in hub.unsubscribe(id) }
    }
}

/// An `AsyncSequence` of changes that ends when the consuming task is cancelled.
/// Observation starts when iteration starts.
public struct ChangeStream: AsyncSequence, Sendable {
    public typealias Element = Change
    let core: ReplicaCore
    let suite: String?
    let key: String?
    let limit: Int

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<Change>.Iterator
        public mutating func next() async -> Change? { await base.next() }
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Change? { await base.next(isolation: actor) }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        let (stream, continuation) = AsyncStream<Change>.makeStream(bufferingPolicy: .bufferingNewest(limit))
        do {
            let id = try core.hub.subscribe(suite: suite, key: key) { change in continuation.yield(change) }
            continuation.onTermination = { [hub = core.hub] _ in hub.unsubscribe(id) }
        } catch {
            continuation.finish()
        }
        return AsyncIterator(base: stream.makeAsyncIterator())
    }
}
