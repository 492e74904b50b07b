/// The layer a setting's value came from, in resolution order.
enum SettingSource: Hashable, Sendable, CustomStringConvertible {
    /// A scope's own override (`depth` 0 is the scope asked, 1 its parent, …).
    case scope(depth: Int)
    /// The root's argument layer (command-line arguments, `SettingsScope.override(_:text:)`).
    case argument
    /// A value stored in the named suite.
    case suite(String)
    /// A default registered in this process for the named suite.
    case registeredDefault(suite: String)
    /// The key's `defaultValue`.
    case defaultValue

    var description: String {
        switch self {
        case .scope(let depth): "scope override (\(depth) up)"
        case .argument: "argument"
        case .suite(let name): "suite \(name)"
        case .registeredDefault(let name): "registered default of suite \(name)"
        case .defaultValue: "default value"
        }
    }
}

/// A setting's value and the layer it came from: what `SettingsScope.resolve(_:)` finds
/// (``SettingsScope/explain(_:)`` tells it).
struct ResolvedSetting<Value: Sendable>: Sendable {
    /// The resolved value.
    let value: Value
    /// The layer that answered.
    let source: SettingSource
}
