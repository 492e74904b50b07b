/// Observation callbacks delivered on an actor — the main actor, or any actor of yours — so code
/// isolated to it needs no hop. Changes arrive one at a time, in commit order, with the same promise
/// and buffering as `ChangeStream` (`Store.Options.observerBufferLimit`); delivery stops when the
/// token is cancelled or released. The actor must run: on the main actor that means a program with
/// an `async` main (or one that runs the main queue), as a UI app or a server does.
///
/// ```swift
/// let token = try suite.observe("theme", on: MainActor.shared) { change in
///     model.theme = change.effectiveValue          // on the main actor
/// }
/// ```
extension Suite {
    /// Calls `handler` on the main actor for the changes to `key` (or to the suite, when `nil`).
    ///
    /// ```swift
    /// let token = try suite.observe("theme", on: MainActor.shared) { change in label.text = "\(change.effectiveValue as Any)" }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key to observe, or `nil` for every key of the suite.
    ///   - actor: `MainActor.shared`.
    ///   - onError: Called once (on the main actor) if the journal cannot be read; observation ends
    ///     then. When `nil`, the error goes to `UnhandledErrors`.
    ///   - handler: Called with each change on the main actor, one at a time, in commit order.
    /// - Returns: The token that keeps the observation alive.
    /// - Throws: ``ConcordError`` `.invalidKey`, or `ConcordError` when observation cannot start.
    public func observe(
        _ key: String? = nil, on actor: MainActor, onError: (@MainActor @Sendable (ConcordError) -> Void)? = nil,
        _ handler: @escaping @MainActor @Sendable (Change) -> Void
    ) throws -> ObservationToken {
        if let key { try Names.validateKey(key, inSuite: name) }
        return try core.observeOnMainActor(suite: name, key: key, onError: onError, handler)
    }

    /// Calls `handler` isolated to `actor` for the changes to `key` (or to the suite, when `nil`).
    ///
    /// ```swift
    /// actor Cache { var theme: Value?; func set(_ v: Value?) { theme = v } }
    /// let cache = Cache()
    /// let token = try suite.observe("theme", on: cache) { cache, change in cache.set(change.effectiveValue) }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key to observe, or `nil` for every key of the suite.
    ///   - actor: The actor the handler runs on.
    ///   - onError: Called once if the journal cannot be read; observation ends then. When `nil`,
    ///     the error goes to `UnhandledErrors`.
    ///   - handler: Called with the actor and each change, one at a time, in commit order.
    /// - Returns: The token that keeps the observation alive.
    /// - Throws: ``ConcordError`` `.invalidKey`, or `ConcordError` when observation cannot start.
    public func observe<A: Actor>(
        _ key: String? = nil, on actor: A, onError: (@Sendable (ConcordError) -> Void)? = nil,
        _ handler: @escaping @Sendable (isolated A, Change) -> Void
    ) throws -> ObservationToken {
        if let key { try Names.validateKey(key, inSuite: name) }
        return try core.observe(suite: name, key: key, on: actor, onError: onError, handler)
    }
}

extension Store {
    /// Calls `handler` on the main actor for the changes to every suite of this replica (each key's
    /// latest, in commit order), until the token is cancelled or released.
    ///
    /// ```swift
    /// let token = try store.observe(on: MainActor.shared) { change in model.changed(change.suite, change.key) }
    /// ```
    ///
    /// - Parameters:
    ///   - actor: `MainActor.shared`.
    ///   - onError: Called once (on the main actor) if the journal cannot be read; observation ends then.
    ///   - handler: Called with each change on the main actor, one at a time, in commit order.
    /// - Returns: The token that keeps the observation alive.
    /// - Throws: `ConcordError` when observation cannot start.
    public func observe(
        on actor: MainActor, onError: (@MainActor @Sendable (ConcordError) -> Void)? = nil,
        _ handler: @escaping @MainActor @Sendable (Change) -> Void
    ) throws -> ObservationToken {
        try core.observeOnMainActor(suite: nil, key: nil, onError: onError, handler)
    }

    /// Calls `handler` isolated to `actor` for the changes to every suite of this replica.
    ///
    /// ```swift
    /// let token = try store.observe(on: cache) { cache, change in cache.forget(change.suite, change.key) }
    /// ```
    ///
    /// - Parameters:
    ///   - actor: The actor the handler runs on.
    ///   - onError: Called once if the journal cannot be read; observation ends then.
    ///   - handler: Called with the actor and each change, one at a time, in commit order.
    /// - Returns: The token that keeps the observation alive.
    /// - Throws: `ConcordError` when observation cannot start.
    public func observe<A: Actor>(
        on actor: A, onError: (@Sendable (ConcordError) -> Void)? = nil,
        _ handler: @escaping @Sendable (isolated A, Change) -> Void
    ) throws -> ObservationToken {
        try core.observe(suite: nil, key: nil, on: actor, onError: onError, handler)
    }
}

extension ReplicaCore {
    func observeOnMainActor(
        suite: String?, key: String?, onError: (@MainActor @Sendable (ConcordError) -> Void)?,
        _ handler: @escaping @MainActor @Sendable (Change) -> Void
    ) throws -> ObservationToken {
        let (stream, start) = try actorFeed(suite: suite, key: key)
        let directory = path
        let task = Task { @MainActor in
            do { for try await change in stream { handler(change) } } catch {
                let failure = error as? ConcordError ?? .io(path: directory, reason: "observation failed: \(error)")
                if let onError { onError(failure) } else { UnhandledErrors.report(failure) }
            }
        }
        return start(task)
    }

    func observe<A: Actor>(
        suite: String?, key: String?, on actor: A, onError: (@Sendable (ConcordError) -> Void)?,
        _ handler: @escaping @Sendable (isolated A, Change) -> Void
    ) throws -> ObservationToken {
        let (stream, start) = try actorFeed(suite: suite, key: key)
        let directory = path
        let task = Task { await Self.pump(stream, on: actor, directory: directory, onError: onError, handler) }
        return start(task)
    }

    private static func pump<A: Actor>(
        _ stream: AsyncThrowingStream<Change, any Error>, on actor: isolated A, directory: String,
        onError: (@Sendable (ConcordError) -> Void)?,
        _ handler: @Sendable (isolated A, Change) -> Void
    ) async {
        do { for try await change in stream { handler(actor, change) } } catch {
            let failure = error as? ConcordError ?? .io(path: directory, reason: "observation failed: \(error)")
            if let onError { onError(failure) } else { UnhandledErrors.report(failure) }
        }
    }

    /// Subscribes a buffered stream to the key's changes; the returned function ties a delivering
    /// task to a token that ends both.
    private func actorFeed(suite: String?, key: String?) throws
        -> (AsyncThrowingStream<Change, any Error>, (Task<Void, Never>) -> ObservationToken)
    {
        let (stream, continuation) = AsyncThrowingStream<Change, any Error>.makeStream(bufferingPolicy: .bufferingNewest(options.observerBufferLimit))
        let id = try hub.subscribe(
            suite: suite, key: key,
            deliver: { change in continuation.yield(change) },
            fail: { error in continuation.finish(throwing: error) })
        return (
            stream,
            { [hub] task in
                ObservationToken {
                    hub.unsubscribe(id)
                    continuation.finish()
                    task.cancel()
                }
            }
        )
    }
}
