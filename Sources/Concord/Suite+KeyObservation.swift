/// Observing typed keys: their values, and their changes as typed values (see ``ValueObservation``).
extension Suite {
    /// The value of `key` now, then after each change — from this process, another process or a sync.
    /// When nothing is stored and no default is registered, an element is the key's default.
    ///
    /// ```swift
    /// for try await theme in suite.values(of: Key("theme", default: Theme.system)) { apply(theme) }
    /// ```
    ///
    /// - Returns: An observation whose first element is the current value (buffering `.latest`); a
    ///   stored value of another type ends it with ``ConcordError`` `.typeMismatch`.
    public func values<T>(of key: Key<T>) -> ValueObservation<T> {
        let defaultValue = key.defaultValue
        return values(of: key.name, as: T.self).map { $0 ?? defaultValue }
    }
}

extension Stored {
    /// The property's value now, then after each change (see ``Suite/values(of:)``).
    ///
    /// ```swift
    /// for try await name in profile.$username.values { print("Hello, \(name)") }
    /// ```
    public var values: ValueObservation<T> { reference.suite.values(of: key) }

    /// Every change of the key committed after observation starts, as a typed value (writes in quick
    /// succession may arrive as one change with the latest value). A stored value of another type
    /// arrives as the default, with the error in `StoredChange.error`.
    ///
    /// ```swift
    /// for try await change in profile.$username.changes { print(change.value, change.origin) }
    /// let token = try profile.$username.changes.start(on: MainActor.shared) { change in label.text = change.value }
    /// ```
    public var changes: ValueObservation<StoredChange<T>> {
        let defaultValue = key.defaultValue
        return reference.suite.changes(for: reference.key).map { StoredChange($0, default: defaultValue) }
    }
}
