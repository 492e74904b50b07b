/// The settings as seen from one scope — the analog of SwiftUI's `EnvironmentValues`.
/// Extend it with a computed property per setting, through `subscript(_:)` with its `SettingKey`.
///
/// ```swift
/// extension SettingValues {
///     var fontSize: Int {
///         get { self[FontSizeKey.self] }
///         set { self[FontSizeKey.self] = newValue }
///     }
/// }
///
/// let size = scope.values.fontSize                      // resolved through the layers
/// let large = scope.child { $0.fontSize = 18 }          // a child scope overriding it
/// ```
///
/// Reading resolves through the scope's layers (see `SettingsScope`). Assigning records an
/// override in this value only; it writes nothing to the store. Child scopes are built from
/// such assignments.
public struct SettingValues: Sendable {
    let scope: SettingsScope
    private(set) var assigned: [ObjectIdentifier: any Sendable] = [:]

    init(scope: SettingsScope) {
        self.scope = scope
    }

    /// The value of the setting `key`: assigned here, else resolved through the scope's layers.
    public subscript<K: SettingKey>(key: K.Type) -> K.Value {
        get {
            if let value = assigned[ObjectIdentifier(key)] as? K.Value { return value }
            return scope.resolve(key).value
        }
        set { assigned[ObjectIdentifier(key)] = newValue }
    }
}
