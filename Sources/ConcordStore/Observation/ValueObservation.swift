/// Something to observe in a replica — every change, a suite's, one key's, or a key's value —
/// and how a consumer that falls behind is buffered. Make one with ``Store/changes()``,
/// ``Suite/changes()``, ``Suite/changes(for:)`` or ``Suite/values(of:as:)``, then consume it in
/// one of three ways, each an observation of its own:
///
/// - as an `AsyncSequence`: `for try await` starts observing when iteration starts, and stops when
///   the consuming task is cancelled or the loop ends;
/// - with a callback: ``start(onError:onChange:)`` calls it one element at a time on the store's
///   delivery queue, until the returned ``ObservationToken`` is cancelled or released;
/// - on an actor: `start(on:onError:onChange:)` calls it isolated to that actor (the main
///   actor, or one of yours), so code isolated to it needs no hop.
///
/// ```swift
/// for try await theme in suite.values(of: "theme", as: String.self) { apply(theme ?? "light") }
///
/// let token = try suite.changes(for: "theme").start { change in print(change.origin) }
///
/// let onMain = try suite.values(of: "theme", as: String.self).start(on: MainActor.shared) { theme in
///     label.text = theme ?? "light"
/// }
/// ```
///
/// What is promised: every key's latest committed value reaches every observer, in commit order,
/// whichever process or sync committed it. A rewrite of a key supersedes the key's earlier journal
/// entry, which no reader delivers from then on, so an observer that falls behind a burst of
/// rewrites of one key receives the latest of them, not each one. An
/// observation of values delivers the value a read returns now first, then the value after each
/// change; an observation of changes delivers the changes committed after it starts.
///
/// Buffering is chosen per consumer with ``buffering(_:)``: an async sequence or actor delivery that
/// falls behind keeps at most what its ``ObservationBuffering`` allows and drops the oldest beyond
/// that — never the writer's time. Values default to `.latest`, changes to `.bounded(4096)`; every
/// change carries its journal `seq`, so a consumer that sees a gap can catch up with
/// `store.journalEntries(after:)`. A callback runs on the delivery queue as each element comes, so it
/// needs no buffer.
///
/// An observation ends with a ``ConcordError``: `.invalidKey` for a bad key, `.invalidArgument` for a
/// buffer of no elements, `.typeMismatch` when a value is not of the type asked for, or the error
/// met reading the journal (a damaged entry). A sequence throws it; a callback or actor consumer is
/// handed it in `onError` (without one, it goes to the unhandled-error handler, `ConcordError.setUnhandledErrorHandler(_:)`).
public struct ValueObservation<Element: Sendable>: AsyncSequence, Sendable {
    /// Why an observation ends early.
    public typealias Failure = ConcordError

    let core: ReplicaCore
    let suite: String?
    let key: String?
    let bufferingPolicy: ObservationBuffering
    /// Reads the first element and the journal seq it reflects; nil for an observation of changes.
    let initial: (@Sendable () throws -> (Element, seq: UInt64))?
    /// Makes the element a change delivers; what it throws ends the observation.
    let transform: @Sendable (Change) throws -> Element

    package init(
        core: ReplicaCore, suite: String?, key: String?, buffering: ObservationBuffering,
        initial: (@Sendable () throws -> (Element, seq: UInt64))?, transform: @escaping @Sendable (Change) throws -> Element
    ) {
        self.core = core
        self.suite = suite
        self.key = key
        self.bufferingPolicy = buffering
        self.initial = initial
        self.transform = transform
    }

    /// The same observation, buffered for a consumer that falls behind as `policy` says.
    ///
    /// ```swift
    /// for try await change in store.changes().buffering(.unbounded) { print(change.seq, change.key) }
    /// ```
    public func buffering(_ policy: ObservationBuffering) -> ValueObservation {
        ValueObservation(core: core, suite: suite, key: key, buffering: policy, initial: initial, transform: transform)
    }

    /// The same observation delivering `body`'s result for each element (what it throws ends it).
    package func map<T: Sendable>(_ body: @escaping @Sendable (Element) throws -> T) -> ValueObservation<T> {
        let initial = self.initial
        let transform = self.transform
        return ValueObservation<T>(
            core: core, suite: suite, key: key, buffering: bufferingPolicy,
            initial: initial.map { read in
                { @Sendable in
                    let (first, seq) = try read()
                    return (try body(first), seq)
                }
            },
            transform: { change in try body(try transform(change)) })
    }

    // MARK: - Consuming

    /// Calls `onChange` with each element, one at a time and in commit order, on the store's delivery
    /// queue, until the token is cancelled or released.
    ///
    /// ```swift
    /// let token = try suite.changes(for: "theme").start { change in print(change.effectiveValue as Any) }
    /// token.cancel()
    /// ```
    ///
    /// - Parameters:
    ///   - onError: Called once if the observation ends with an error; nothing is delivered after it.
    ///     When `nil`, the error goes to the unhandled-error handler (`ConcordError.setUnhandledErrorHandler(_:)`).
    ///   - onChange: Called with each element.
    /// - Returns: The token that keeps the observation alive.
    /// - Throws: ``ConcordError`` `.invalidKey`, `.invalidArgument`, or the error met when observation
    ///   cannot start (the notify file cannot be watched).
    public func start(
        onError: (@Sendable (ConcordError) -> Void)? = nil,
        onChange: @escaping @Sendable (Element) -> Void
    ) throws -> ObservationToken {
        let cancel = try subscribe(yield: onChange) { error in
            if let onError { onError(error) } else { UnhandledErrors.report(error) }
        }
        return ObservationToken(cancel: cancel)
    }

    /// Calls `onChange` on the main actor with each element, one at a time and in commit order, until
    /// the token is cancelled or released. The main actor must run: a program with an `async` main
    /// (or one that runs the main queue), as a UI app or a server is.
    ///
    /// ```swift
    /// let token = try suite.changes(for: "theme").start(on: MainActor.shared) { change in
    ///     label.text = "\(change.effectiveValue as Any)"
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - actor: `MainActor.shared`.
    ///   - onError: Called once on the main actor if the observation ends with an error. When `nil`,
    ///     the error goes to the unhandled-error handler (`ConcordError.setUnhandledErrorHandler(_:)`).
    ///   - onChange: Called with each element on the main actor.
    /// - Returns: The token that keeps the observation alive.
    /// - Throws: What ``start(onError:onChange:)`` throws.
    public func start(
        on actor: MainActor, onError: (@MainActor @Sendable (ConcordError) -> Void)? = nil,
        onChange: @escaping @MainActor @Sendable (Element) -> Void
    ) throws -> ObservationToken {
        let (stream, continuation) = makeStream()
        let cancel = try subscribe(yield: { continuation.yield($0) }, finish: { continuation.finish(throwing: $0) })
        let task = Task { @MainActor in
            do { for try await element in stream { onChange(element) } } catch {
                let failure = ConcordError.wrapping(error)
                if let onError { onError(failure) } else { UnhandledErrors.report(failure) }
            }
        }
        return ObservationToken {
            cancel()
            continuation.finish()
            task.cancel()
        }
    }

    /// Calls `onChange` isolated to `actor` with each element, one at a time and in commit order,
    /// until the token is cancelled or released.
    ///
    /// ```swift
    /// actor Cache { var theme: String?; func set(_ t: String?) { theme = t } }
    /// let cache = Cache()
    /// let token = try suite.values(of: "theme", as: String.self).start(on: cache) { cache, theme in cache.set(theme) }
    /// ```
    ///
    /// - Parameters:
    ///   - actor: The actor `onChange` runs on.
    ///   - onError: Called once if the observation ends with an error. When `nil`, the error goes to
    ///     `ConcordError.setUnhandledErrorHandler(_:)`.
    ///   - onChange: Called with the actor and each element.
    /// - Returns: The token that keeps the observation alive.
    /// - Throws: What ``start(onError:onChange:)`` throws.
    public func start<A: Actor>(
        on actor: A, onError: (@Sendable (ConcordError) -> Void)? = nil,
        onChange: @escaping @Sendable (isolated A, Element) -> Void
    ) throws -> ObservationToken {
        let (stream, continuation) = makeStream()
        let cancel = try subscribe(yield: { continuation.yield($0) }, finish: { continuation.finish(throwing: $0) })
        let task = Task { await Self.deliver(stream, on: actor, onError: onError, onChange) }
        return ObservationToken {
            cancel()
            continuation.finish()
            task.cancel()
        }
    }

    private static func deliver<A: Actor>(
        _ stream: AsyncThrowingStream<Element, any Error>, on actor: isolated A,
        onError: (@Sendable (ConcordError) -> Void)?, _ onChange: @Sendable (isolated A, Element) -> Void
    ) async {
        do { for try await element in stream { onChange(actor, element) } } catch {
            let failure = ConcordError.wrapping(error)
            if let onError { onError(failure) } else { UnhandledErrors.report(failure) }
        }
    }

    /// Delivers the elements one at a time, on the consumer's isolation.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Element, any Error>.Iterator

        /// The next element, waiting for a change when there is none yet; `nil` once the task is cancelled.
        public mutating func next() async throws(ConcordError) -> Element? {
            do { return try await base.next() } catch { throw ConcordError.wrapping(error) }
        }

        /// The next element, delivered on `actor`'s isolation (the consuming loop's).
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ConcordError) -> Element? {
            do { return try await base.next(isolation: actor) } catch { throw ConcordError.wrapping(error) }
        }
    }

    /// Starts observing: an observation of values reads the current value as its first element.
    public func makeAsyncIterator() -> AsyncIterator {
        let (stream, continuation) = makeStream()
        do {
            let cancel = try subscribe(yield: { continuation.yield($0) }, finish: { continuation.finish(throwing: $0) })
            continuation.onTermination = { _ in cancel() }
        } catch {
            continuation.finish(throwing: error)
        }
        return AsyncIterator(base: stream.makeAsyncIterator())
    }

    // MARK: - Subscribing

    private func makeStream() -> (AsyncThrowingStream<Element, any Error>, AsyncThrowingStream<Element, any Error>.Continuation) {
        let policy: AsyncThrowingStream<Element, any Error>.Continuation.BufferingPolicy
        switch bufferingPolicy {
        case .latest: policy = .bufferingNewest(1)
        case .bounded(let limit): policy = .bufferingNewest(Swift.max(limit, 1))
        case .unbounded: policy = .unbounded
        }
        return AsyncThrowingStream.makeStream(bufferingPolicy: policy)
    }

    /// Subscribes to the change hub: `yield` is called with each element and `finish` once with the
    /// error that ends the observation, both on the delivery queue. Returns what cancels it.
    private func subscribe(
        yield: @escaping @Sendable (Element) -> Void, finish: @escaping @Sendable (ConcordError) -> Void
    ) throws -> @Sendable () -> Void {
        if let key { try Names.validateKey(key, inSuite: suite) }
        if case .bounded(let limit) = bufferingPolicy, limit < 1 {
            throw ConcordError(.invalidArgument, "an observation's buffer must hold at least 1 element, not \(limit)")
        }
        let hub = core.hub
        let gate = ObservationGate(waitsForInitial: initial != nil, transform: transform, yield: yield, finish: finish)
        let id = try hub.subscribe(suite: suite, key: key, deliver: { gate.deliver($0) }, fail: { gate.fail($0) })
        gate.onEnd { hub.unsubscribe(id) }
        if let initial { hub.enqueue { gate.deliverInitial(initial) } }
        return { gate.cancel() }
    }
}
