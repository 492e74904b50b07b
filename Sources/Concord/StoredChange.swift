/// One change of a typed key, as `$name.changes` delivers it.
///
/// <!-- assume: @Stored("theme", in: suite) var theme = Theme.system -->
/// ```swift
/// for try await change in $theme.changes {
///     print(change.value, change.isSet ? "stored" : "default", change.origin)
/// }
/// ```
public struct StoredChange<T: StorableValue>: Sendable {
    /// What a read of the key returns after the change: the stored value, or the registered
    /// default, or the key's default after a delete or reset.
    public let value: T
    /// Whether a value is stored after the change (`false` after a delete or a reset).
    public let isSet: Bool
    /// Who made the change: this process, another process, or a sync from a peer.
    public let origin: ChangeOrigin
    /// The change's position in the replica's journal.
    public let seq: UInt64
    /// Set when the stored value has another type; `value` is then the default.
    public let error: ConcordError?

    /// A change whose value the caller read from it (an exclusive choice's lease).
    init(_ change: Change, value: T) {
        origin = change.origin
        seq = change.seq
        isSet = change.value != nil
        self.value = value
        error = nil
    }

    init(_ change: Change, default defaultValue: T, registeredDefaults: Bool = true) {
        origin = change.origin
        seq = change.seq
        isSet = change.value != nil
        guard let stored = registeredDefaults ? change.effectiveValue : change.value else {
            value = defaultValue
            error = nil
            return
        }
        do {
            value = try T(storedValue: stored)
            error = nil
        } catch {
            value = defaultValue
            self.error = ConcordError.reading(error, stored: stored, as: T.self).during("read", suite: change.suite, key: change.key)
        }
    }
}
