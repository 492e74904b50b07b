/// The layer a setting's value came from, in resolution order.
public enum SettingSource: Hashable, Sendable, CustomStringConvertible {
    /// A scope's own override (`depth` 0 is the scope asked, 1 its parent, …).
    case scope(depth: Int)
    /// The in-memory override layer (for example from command-line arguments).
    case override
    /// A value stored in the named suite.
    case suite(String)
    /// A default registered in this process for the named suite.
    case registeredDefault(suite: String)
    /// The key's `defaultValue`.
    case defaultValue

    public var description: String {
        switch self {
        case .scope(let depth): "scope override (\(depth) up)"
        case .override: "override"
        case .suite(let name): "suite \(name)"
        case .registeredDefault(let name): "registered default of suite \(name)"
        case .defaultValue: "default value"
        }
    }
}

/// A setting's value and the layer it came from.
///
/// ```swift
/// let resolved = scope.resolve(ThemeKey.self)
/// print(resolved.value, "from", resolved.source)     // dark from suite app
/// ```
public struct ResolvedSetting<Value: Sendable>: Sendable {
    /// The resolved value.
    public let value: Value
    /// The layer that answered.
    public let source: SettingSource
}
