/// Typed keys on suites: `suite[key]` reads and writes, checked by the compiler.
extension Suite {
    /// The value of `key`: stored, else registered default, else the key's default.
    /// Setting writes through; a failed write changes nothing and goes to the unhandled-error handler (``ConcordError/setUnhandledErrorHandler(_:)``).
    ///
    /// ```swift
    /// let launchCount = Key("launchCount", default: 0)
    /// suite[launchCount] += 1
    /// ```
    public subscript<T>(key: Key<T>) -> T {
        get { reference(for: key).value(default: key.defaultValue) }
        nonmutating set {
            let reference = reference(for: key)
            do { try reference.set(newValue, declaring: key.policy) } catch { reference.reportUnthrown(error) }
        }
    }

    /// The value of `key`, throwing when it is stored with another type or cannot be read.
    ///
    /// ```swift
    /// let theme = try suite.get(Key("theme", default: Theme.system))
    /// ```
    ///
    /// - Parameter key: The key to read.
    /// - Returns: The stored value, else the registered default, else the key's default.
    /// - Throws: ``ConcordError`` when the stored value has another type or cannot be read.
    public func get<T>(_ key: Key<T>) throws -> T {
        switch reference(for: key).lookup() {
        case .stored(let value), .registeredDefault(let value): return value
        case .absent: return key.defaultValue
        case .failed(let error): throw error
        }
    }

    /// Stores `value` under `key` durably (`nil` of an optional key removes it). With a key that
    /// declares a merge policy, the first write declares it in the replica.
    ///
    /// ```swift
    /// try suite.set(.dark, for: Key("theme", default: Theme.system))
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - key: The key to store it under.
    /// - Returns: The version written, or `nil` when nothing was (as `set(_:forKey:)`).
    /// - Throws: ``ConcordError`` naming the key, with the store's error underneath; nothing is changed.
    @discardableResult
    public func set<T>(_ value: T, for key: Key<T>) throws -> Version? {
        try reference(for: key).set(value, declaring: key.policy)
    }

    /// Removes the stored value of `key`; reads return the default again. The removal syncs.
    ///
    /// - Parameter key: The key to remove.
    /// - Returns: The tombstone's version, or `nil` when the key held no value.
    /// - Throws: ``ConcordError`` when the store cannot be written; nothing is changed.
    @discardableResult
    public func remove<T>(_ key: Key<T>) throws -> Version? {
        try reference(for: key).remove()
    }

    /// Whether a value is stored for `key` (registered defaults do not count).
    public func contains<T>(_ key: Key<T>) -> Bool {
        reference(for: key).isSet
    }

    /// Reads, changes and writes `key` in one write transaction, atomic across processes.
    ///
    /// ```swift
    /// try suite.update(Key("tags", default: [String]())) { $0.append("new") }
    /// ```
    ///
    /// `body` runs inside the write transaction: it must not call the store, and it runs again from
    /// the start if the store's memory map had to grow or another write sharing its commit failed
    /// (it may run on the thread leading that shared commit).
    ///
    /// - Parameters:
    ///   - key: The key to change.
    ///   - body: Changes the current value (stored, else registered default, else the key's default) in place.
    /// - Returns: What `body` returns.
    /// - Throws: ``ConcordError`` when the value cannot be read or written, or what `body` throws; nothing is changed then.
    @discardableResult
    public func update<T, R>(_ key: Key<T>, _ body: (inout T) throws -> R) throws -> R {
        try reference(for: key).update(default: key.defaultValue, declaring: key.policy, body)
    }

    /// Registers `value` as the default of `key` in this process (never stored, never synced);
    /// observers of the key, whose reads may now return it, are told.
    ///
    /// ```swift
    /// try suite.register(default: Theme.dark, for: Key("theme", default: Theme.system))
    /// ```
    public func register<T>(default value: T, for key: Key<T>) throws {
        do { try register(defaults: [key.name: value]) } catch {
            throw ConcordError.storing(error, as: T.self, key: key.name).during("write", suite: name, key: key.name)
        }
    }

    /// The shared reference behind `key` in this suite.
    func reference<T>(for key: Key<T>) -> StoredReference<T> {
        StoredReference.shared(suite: self, key: key.name)
    }
}
