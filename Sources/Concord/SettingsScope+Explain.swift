extension SettingsScope {
    /// Why a setting resolves as it does from this scope: ``Suite/explain(_:)`` of the suite that
    /// answered (the first suite when a scope's override, the argument layer or the key's
    /// `defaultValue` answered), with the value and layer the scope resolved — a scope's override,
    /// an argument, a stored record, a registered default, or the setting's default value.
    ///
    /// ```swift
    /// let preview = scope.child { $0.theme = .dark }
    /// if let why = try preview.explain(ThemeKey.self) {
    ///     print(why.layer)          // a scope's override (0 up)
    ///     print(why.record?.version as Any, why.conflicts.count)   // what is stored beneath it
    /// }
    /// ```
    ///
    /// - Parameter key: The setting key.
    /// - Returns: The explanation; nil when the scope searches no suite and nothing overrides the key.
    /// - Throws: What ``Suite/explain(_:)`` throws.
    public func explain<K: SettingKey>(_ key: K.Type) throws -> Explanation? {
        let resolved = resolve(key)
        let layer: Explanation.Layer
        var suiteName: String?
        switch resolved.source {
        case .scope(let depth): layer = .scopeOverride(depth: depth)
        case .argument: layer = .argument
        case .suite(let name): (layer, suiteName) = (.stored, name)
        case .registeredDefault(let name): (layer, suiteName) = (.registeredDefault, name)
        case .defaultValue: layer = .settingDefault
        }
        guard let suite = suites.first(where: { $0.name == suiteName }) ?? suites.first else { return nil }
        let explanation = try suite.explain(K.name)
        return explanation.answered(by: layer, value: try resolved.value.storedValue())
    }
}
