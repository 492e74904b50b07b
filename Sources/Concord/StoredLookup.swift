/// What a read of a key found, layer by layer: what a `StoredReference` caches.
@usableFromInline
enum StoredLookup<T: Sendable>: Sendable {
    /// A value is stored in the suite.
    case stored(T)
    /// Nothing is stored; this process registered a default for the key.
    case registeredDefault(T)
    /// Nothing is stored and no default is registered.
    case absent
    /// The stored value could not be read or has another type.
    case failed(ConcordError)

    /// The value found, or `defaultValue` when there is none (or it could not be read).
    @inlinable
    func value(or defaultValue: T) -> T {
        switch self {
        case .stored(let value), .registeredDefault(let value): return value
        case .absent, .failed: return defaultValue
        }
    }

    /// Whether a value is stored (registered defaults do not count).
    @inlinable
    var isStored: Bool {
        if case .stored = self { return true }
        return false
    }
}
