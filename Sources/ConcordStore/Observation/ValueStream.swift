import Synchronization

/// The value of one key as an `AsyncSequence`: first the value a read returns now, then the value
/// after each change — whoever made it (this process, another process, a sync) — as
/// `updates(initial:)` in Defaults and `ValueObservation` in GRDB do.
///
/// What is promised — the latest value, after coalescing: every element is a value the key held
/// after a commit, in commit order, and the key's latest committed value always arrives. A consumer
/// slower than the writes does not get every intermediate value: the stream keeps only the newest
/// undelivered one (and the journal delivers one entry per key), so a burst of writes may arrive as its
/// last value alone. Equal values are not filtered out: a write of the same value is delivered too.
///
/// Elements are what `suite.get(key, as: T.self)` would return: the stored value, else the
/// registered default, else `nil`. A stored value that is not a `T` ends the stream with
/// ``ConcordError`` `.typeMismatch`; a journal that cannot be read ends it with that error. The stream ends
/// when the consuming task is cancelled. Iteration delivers on the consumer's isolation: a loop on
/// the main actor receives every element there.
///
/// ```swift
/// for try await theme in suite.values(of: "theme", as: String.self) {
///     apply(theme ?? "light")          // now, then as it changes
/// }
/// ```
public struct ValueStream<T: StorableValue>: AsyncSequence, Sendable {
    /// What a read returns: the stored value, else the registered default, else `nil`.
    public typealias Element = T?
    /// Why a stream ends early: a bad key, a value of another type, or a journal that cannot be read.
    public typealias Failure = ConcordError

    let suite: Suite
    let key: String

    /// Delivers the values one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<T?, any Error>.Iterator

        /// The next value, waiting for a change when there is none yet; `nil` when the task is cancelled.
        public mutating func next() async throws(ConcordError) -> T?? {
            do { return try await base.next() } catch { throw Self.storeError(error) }
        }

        /// The next value, delivered on `actor`'s isolation (the consuming loop's).
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ConcordError) -> T?? {
            do { return try await base.next(isolation: actor) } catch { throw Self.storeError(error) }
        }

        private static func storeError(_ error: any Error) -> ConcordError {
            error as? ConcordError ?? .io(path: "", reason: "observation failed: \(error)")
        }
    }

    /// Starts observing, then reads the current value: it is the first element.
    public func makeAsyncIterator() -> AsyncIterator {
        let (stream, continuation) = AsyncThrowingStream<T?, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let gate = InitialValueGate(suite: suite, key: key, continuation: continuation, as: T.self)
        do {
            try Names.validateKey(key, inSuite: suite.name)
            let id = try suite.core.hub.subscribe(
                suite: suite.name, key: key,
                deliver: { change in gate.deliver(change) },
                fail: { error in continuation.finish(throwing: error) })
            continuation.onTermination = { [hub = suite.core.hub] _ in hub.unsubscribe(id) }
            try gate.readInitial()
        } catch {
            continuation.finish(throwing: error)
        }
        return AsyncIterator(base: stream.makeAsyncIterator())
    }
}

/// Orders a value stream's first element (read after subscribing) before the changes, and drops
/// the changes the first element already reflects.
private final class InitialValueGate<T: StorableValue>: Sendable {
    private let suite: Suite
    private let key: String
    private let continuation: AsyncThrowingStream<T?, any Error>.Continuation
    /// The seq the first element was read at (nil until then), and the newest change that came before it.
    private let state = Mutex<(initialSeq: UInt64?, held: Change?)>((nil, nil))

    init(suite: Suite, key: String, continuation: AsyncThrowingStream<T?, any Error>.Continuation, as: T.Type) {
        self.suite = suite
        self.key = key
        self.continuation = continuation
    }

    func readInitial() throws {
        let (record, seq) = try suite.core.snapshot { s in (try s.record(suite: suite.name, key: key), s.lastSeq) }
        let stored: Value?
        do { stored = try record?.value(at: suite.core.options.wallClock()) } catch {
            throw ConcordError.damaged(path: suite.store.directory, reason: "the value of \(suite.name)/\(key) does not decode: \(error)")
        }
        let initial = try typed(stored ?? suite.registeredDefault(forKey: key))
        state.withLock { s in
            s.initialSeq = seq
            continuation.yield(initial)
            if let held = s.held, held.seq > seq { send(held) }
            s.held = nil
        }
    }

    func deliver(_ change: Change) {
        state.withLock { s in
            guard let initialSeq = s.initialSeq else {
                s.held = change
                return
            }
            // An expiry has no journal seq of its own (its change carries its record's): it always goes.
            if change.seq > initialSeq || change.origin == .expired { send(change) }
        }
    }

    private func send(_ change: Change) {
        do { continuation.yield(try typed(change.effectiveValue)) } catch { continuation.finish(throwing: error) }
    }

    private func typed(_ value: Value?) throws -> T? {
        guard let value else { return nil }
        return try suite.convert(value, key: key)
    }
}

extension Suite {
    /// The value of `key` now, then as it changes, as a `T` (see `ValueStream` for what is promised).
    ///
    /// ```swift
    /// for try await count in suite.values(of: "launchCount", as: Int.self) { print(count ?? 0) }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key to follow.
    ///   - type: The type its values are read as.
    /// - Returns: A stream whose first element is the current value; it throws ``ConcordError`` `.invalidKey`
    ///   for a bad key, and ``ConcordError`` `.typeMismatch` when a value is not a `T`.
    public func values<T: StorableValue>(of key: String, as type: T.Type = T.self) -> ValueStream<T> {
        ValueStream(suite: self, key: key)
    }
}
