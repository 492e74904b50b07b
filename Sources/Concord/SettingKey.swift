/// A typed key of a layered setting — the analog of SwiftUI's `EnvironmentKey`.
///
/// Declare the key, then reach it through a computed property on `SettingValues`:
///
/// ```swift
/// enum Theme: String, StorableValue { case system, light, dark }
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
/// The value type decides how it is stored in suites (see `StorableValue`).
public protocol SettingKey {
    /// The type of the setting's value; it decides how the value is stored.
    associatedtype Value: StorableValue
    /// What the setting is when no layer has a value.
    static var defaultValue: Value { get }
    /// The key's name in suites and in the override layer; the type's name unless you give one.
    static var name: String { get }
}

extension SettingKey {
    /// The type's name, e.g. `ThemeKey`; give the key a `name` of its own to store it under another.
    public static var name: String { String(describing: Self.self) }
}
