/// A property that reads a layered setting — the analog of SwiftUI's `@Environment`.
///
/// ```swift
/// struct Toolbar {
///     @Setting(\.theme) var theme                  // from SettingsScope.current when read
///     @Setting(\.fontSize, in: scope) var fontSize // from a given scope
/// }
/// ```
///
/// Without a scope, it reads from ``SettingsScope/current`` at the moment it is read, so an
/// `UpdateHost` given a scope (or `SettingsScope.$current.withValue`) decides what it sees.
/// Reads are tracked by `withObservationTracking`: a change in any layer that answered is notified.
@propertyWrapper
public struct Setting<Value: Sendable>: StoreProperty {
    private let keyPath: KeyPath<SettingValues, Value> & Sendable
    private let scope: SettingsScope?

    /// A property reading the setting at `keyPath` from `scope` (or ``SettingsScope/current``).
    public init(_ keyPath: KeyPath<SettingValues, Value> & Sendable, in scope: SettingsScope? = nil) {
        self.keyPath = keyPath
        self.scope = scope
    }

    /// The resolved value.
    public var wrappedValue: Value {
        (scope ?? SettingsScope.current)[keyPath]
    }
}
