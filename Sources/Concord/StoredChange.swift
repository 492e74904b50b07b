/// One change of a typed key, as `$name.changes` and `observe` deliver it.
///
/// <!-- assume: @Stored("theme", in: suite) var theme = Theme.system -->
/// ```swift
/// for try await change in $theme.changes {
///     print(change.value, change.isSet ? "stored" : "default", change.origin)
/// }
/// ```
public struct StoredChange<Value: StorableValue>: Sendable {
    /// What a read of the key returns after the change: the stored value, or the registered
    /// default, or the key's default after a delete or reset.
    public let value: Value
    /// Whether a value is stored after the change (`false` after a delete or a reset).
    public let isSet: Bool
    /// Who made the change: this process, another process, or a sync from a peer.
    public let origin: ChangeOrigin
    /// The change's position in the replica's journal.
    public let seq: UInt64
    /// Set when the stored value has another type; `value` is then the default.
    public let error: ConcordError?

    /// A change whose value the caller read from it (an exclusive choice's lease).
    init(_ change: Change, value: Value) {
        origin = change.origin
        seq = change.seq
        isSet = change.value != nil
        self.value = value
        error = nil
    }

    init(_ change: Change, default defaultValue: Value, registeredDefaults: Bool = true) {
        origin = change.origin
        seq = change.seq
        isSet = change.value != nil
        guard let stored = registeredDefaults ? change.effectiveValue : change.value else {
            value = defaultValue
            error = nil
            return
        }
        do {
            value = try Value(storedValue: stored)
            error = nil
        } catch {
            value = defaultValue
            self.error = ConcordError.reading(error, stored: stored, as: Value.self).during("read", suite: change.suite, key: change.key)
        }
    }
}

/// The changes of one typed key from the moment iteration starts, as an `AsyncSequence` that ends
/// when the consuming task is cancelled (and throws if the journal cannot be read). Built on the store's change journal, which keeps one
/// entry per key: writes in quick succession may arrive as one change carrying the latest value,
/// but the latest value always arrives, and changes arrive in commit order (see `Store.changes()`
/// for the buffering policy).
///
/// <!-- assume: @Stored("username", in: suite) var username = "Guest" -->
/// ```swift
/// Task { for try await change in $username.changes { greet(change.value) } }
/// ```
public struct StoredChanges<Value: StorableValue>: AsyncSequence, Sendable {
    public typealias Element = StoredChange<Value>
    public typealias Failure = ConcordError

    private let base: ChangeStream
    private let defaultValue: Value
    private let registeredDefaults: Bool

    init(reference: StoredReference<Value>, defaultValue: Value, registeredDefaults: Bool = true) {
        base = reference.suite.changes(for: reference.key)
        self.defaultValue = defaultValue
        self.registeredDefaults = registeredDefaults
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: ChangeStream.AsyncIterator
        let defaultValue: Value
        let registeredDefaults: Bool

        public mutating func next() async throws(ConcordError) -> StoredChange<Value>? {
            guard let change = try await base.next() else { return nil }
            return StoredChange(change, default: defaultValue, registeredDefaults: registeredDefaults)
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ConcordError) -> StoredChange<Value>? {
            guard let change = try await base.next(isolation: actor) else { return nil }
            return StoredChange(change, default: defaultValue, registeredDefaults: registeredDefaults)
        }
    }

    /// Starts observing: changes committed after this call are delivered.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), defaultValue: defaultValue, registeredDefaults: registeredDefaults)
    }
}
