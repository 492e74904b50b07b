/// A typed key of a layered setting — the analog of SwiftUI's `EnvironmentKey`.
///
/// Declare the key, then reach it through a computed property on `SettingValues`:
///
/// ```swift
/// enum Theme: String { case system, light, dark }
///
/// struct ThemeKey: SettingKey {
///     static let defaultValue = Theme.system
///     static let name = "theme"             // its key in suites and overrides
/// }
///
/// extension SettingValues {
///     var theme: Theme {
///         get { self[ThemeKey.self] }
///         set { self[ThemeKey.self] = newValue }
///     }
/// }
///
/// @Setting(\.theme, in: scope) var theme
/// ```
///
/// The value type picks how it is stored in suites (see `ValueCoding`); implement `coding`
/// yourself to store it another way.
public protocol SettingKey {
    associatedtype Value: Sendable
    /// What the setting is when no layer has a value.
    static var defaultValue: Value { get }
    /// The key's name in suites and in the override layer; the type's name unless you give one.
    static var name: String { get }
    /// How the value is stored in suites.
    static var coding: ValueCoding<Value> { get }
}

extension SettingKey {
    /// The type's name, e.g. `ThemeKey`; give the key a `name` of its own to store it under another.
    public static var name: String { String(describing: Self.self) }
}

extension SettingKey where Value: StorableValue {
    /// The coding the value type calls for (see `ValueCoding`).
    public static var coding: ValueCoding<Value> { .storable }
}

extension SettingKey where Value: StorableValue & Codable {
    /// The coding the value type calls for (see `ValueCoding`).
    public static var coding: ValueCoding<Value> { .storable }
}

extension SettingKey where Value: RawRepresentable, Value.RawValue: StorableValue {
    /// The coding the value type calls for (see `ValueCoding`).
    public static var coding: ValueCoding<Value> { .rawRepresentable }
}

extension SettingKey where Value: RawRepresentable & Codable, Value.RawValue: StorableValue {
    /// The coding the value type calls for (see `ValueCoding`).
    public static var coding: ValueCoding<Value> { .rawRepresentable }
}

extension SettingKey where Value: Codable {
    /// The coding the value type calls for (see `ValueCoding`).
    public static var coding: ValueCoding<Value> { .codable }
}

extension SettingKey where Value: OptionalValue, Value.Wrapped: StorableValue {
    /// The coding the value type calls for (see `ValueCoding`).
    public static var coding: ValueCoding<Value> { .optional(.storable) }
}

extension SettingKey where Value: OptionalValue & Codable, Value.Wrapped: StorableValue & Codable {
    /// The coding the value type calls for (see `ValueCoding`).
    public static var coding: ValueCoding<Value> { .optional(.storable) }
}

extension SettingKey where Value: OptionalValue, Value.Wrapped: RawRepresentable & Sendable, Value.Wrapped.RawValue: StorableValue {
    /// The coding the value type calls for (see `ValueCoding`).
    public static var coding: ValueCoding<Value> { .optional(.rawRepresentable) }
}

extension SettingKey where Value: OptionalValue & Codable, Value.Wrapped: RawRepresentable & Codable & Sendable, Value.Wrapped.RawValue: StorableValue {
    /// The coding the value type calls for (see `ValueCoding`).
    public static var coding: ValueCoding<Value> { .optional(.rawRepresentable) }
}

extension SettingKey where Value: OptionalValue & Codable, Value.Wrapped: Codable & Sendable {
    /// The coding the value type calls for (see `ValueCoding`).
    public static var coding: ValueCoding<Value> { .optional(.codable) }
}
