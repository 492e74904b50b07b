/// A get/set pair for one value — the analog of SwiftUI's `Binding`, for handing a stored value
/// to code that should read and write it without knowing where it lives.
///
/// <!-- assume: @Stored("username", in: suite) var username = "Guest" -->
/// ```swift
/// func edit(_ name: StoreBinding<String>) { name.wrappedValue = name.wrappedValue.capitalized }
/// edit($username.binding)
/// ```
@propertyWrapper
public struct StoreBinding<Value>: Sendable {
    private let getter: @Sendable () -> Value
    private let setter: @Sendable (Value) -> Void

    /// A binding that reads with `get` and writes with `set`.
    public init(get: @escaping @Sendable () -> Value, set: @escaping @Sendable (Value) -> Void) {
        getter = get
        setter = set
    }

    /// Reads or writes the bound value.
    public var wrappedValue: Value {
        get { getter() }
        nonmutating set { setter(newValue) }
    }

    /// The binding itself, so `$name` of a `@StoreBinding` property passes it on.
    public var projectedValue: StoreBinding<Value> { self }

    /// Reads the bound value.
    public func get() -> Value { getter() }

    /// Writes the bound value.
    public func set(_ value: Value) { setter(value) }
}

extension StoreBinding where Value: Sendable {
    /// A binding that always reads `value` and ignores writes (for previews and tests).
    public static func constant(_ value: Value) -> StoreBinding {
        StoreBinding(get: { value }, set: { _ in })
    }
}
