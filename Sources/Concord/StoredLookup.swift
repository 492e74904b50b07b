/// What a read of a key found, layer by layer.
///
/// <!-- assume: @Stored("username", in: suite) var username = "Guest" -->
/// ```swift
/// switch $username.lookup() {
/// case .stored(let name): print("stored:", name)
/// case .registeredDefault(let name): print("registered default:", name)
/// case .absent: print("not set")
/// case .failed(let error): print(error)
/// }
/// ```
public enum StoredLookup<Value: Sendable>: Sendable {
    /// A value is stored in the suite.
    case stored(Value)
    /// Nothing is stored; this process registered a default for the key.
    case registeredDefault(Value)
    /// Nothing is stored and no default is registered.
    case absent
    /// The stored value could not be read or has another type.
    case failed(ConcordError)

    /// The value found, or `defaultValue` when there is none (or it could not be read).
    @inlinable
    public func value(or defaultValue: Value) -> Value {
        switch self {
        case .stored(let value), .registeredDefault(let value): return value
        case .absent, .failed: return defaultValue
        }
    }

    /// Whether a value is stored (registered defaults do not count).
    @inlinable
    public var isStored: Bool {
        if case .stored = self { return true }
        return false
    }
}
