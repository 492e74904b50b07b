/// A typed key's value as an `AsyncSequence`: the value a read returns now, then as it changes
/// — from this process, another process or a sync. Built on `ValueStream`, with the same promise (the
/// latest value, after coalescing: the key's latest committed value always arrives, in commit order,
/// but a slow consumer does not see every intermediate one). When nothing is stored and no default is
/// registered, an element is the key's default. A stored value of another type ends the stream with
/// ``ConcordError`` `.typeMismatch`.
///
/// ```swift
/// let launchCount = Key("launchCount", default: 0)
/// for try await count in suite.values(of: launchCount) { print(count) }
/// for try await name in profile.$username.values { greet(name) }
/// ```
public struct StoredValues<Value: StorableValue>: AsyncSequence, Sendable {
    /// The key's value: stored, else registered default, else the key's default.
    public typealias Element = Value
    /// Why a stream ends early: a value of another type, or a journal that cannot be read.
    public typealias Failure = ConcordError

    let base: ValueStream<Value>
    let defaultValue: Value

    /// Delivers the values one at a time, on the consumer's isolation.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: ValueStream<Value>.AsyncIterator
        let defaultValue: Value

        /// The next value, waiting for a change when there is none yet; `nil` when the task is cancelled.
        public mutating func next() async throws(ConcordError) -> Value? {
            guard let element = try await base.next() else { return nil }
            return element ?? defaultValue
        }

        /// The next value, delivered on `actor`'s isolation (the consuming loop's).
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ConcordError) -> Value? {
            guard let element = try await base.next(isolation: actor) else { return nil }
            return element ?? defaultValue
        }
    }

    /// Starts observing, then reads the current value: it is the first element.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), defaultValue: defaultValue)
    }
}

extension Suite {
    /// The value of `key` now, then as it changes (see `StoredValues` for what is promised).
    ///
    /// ```swift
    /// for try await theme in suite.values(of: Key("theme", default: Theme.system)) { apply(theme) }
    /// ```
    ///
    /// - Returns: A stream whose first element is the current value.
    public func values<Value>(of key: Key<Value>) -> StoredValues<Value> {
        StoredValues(base: values(of: key.name, as: Value.self), defaultValue: key.defaultValue)
    }
}

extension StoredProjection {
    /// The property's value now, then as it changes (see `StoredValues` for what is promised).
    ///
    /// ```swift
    /// for try await name in profile.$username.values { print("Hello, \(name)") }
    /// ```
    public var values: StoredValues<Value> { reference.suite.values(of: key) }
}
