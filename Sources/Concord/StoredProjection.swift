/// What `$name` of a `@Stored` property gives: a binding, the change stream, `reset()`, whether
/// the value is set or defaulted, a throwing `set`, and an atomic read-modify-write.
///
/// ```swift
/// @Stored("launchCount", in: suite) var launchCount = 0
///
/// try $launchCount.update { $0 += 1 }        // atomic across processes
/// if $launchCount.isDefaulted { showOnboarding() }
/// try $launchCount.reset()
/// let binding = $launchCount.binding          // get/set pair for other code
/// ```
public struct StoredProjection<Value: StorableValue>: Sendable {
    /// The property's key: its name and default value.
    public let key: Key<Value>
    /// The shared per-key reference behind the property.
    public let reference: StoredReference<Value>

    /// The value a read returns now.
    public func get() -> Value { reference.value(default: key.defaultValue) }

    /// Stores `value` durably — the throwing form of the wrapper's setter.
    ///
    /// ```swift
    /// try profile.$username.set("Ada")
    /// ```
    ///
    /// - Parameter value: The new value (an optional's `nil` removes the key).
    /// - Returns: The version written, or `nil` when nothing was.
    /// - Throws: ``ConcordError`` naming the key, with the store's error underneath; nothing is changed.
    @discardableResult
    public func set(_ value: Value) throws -> Version? { try reference.set(value, declaring: key.policy) }

    /// The value, readable and writable (writes report errors like the wrapper's setter does).
    public var value: Value {
        get { get() }
        nonmutating set {
            do { try reference.set(newValue, declaring: key.policy) } catch { reference.reportUnthrown(error) }
        }
    }

    /// A get/set pair for this key.
    public var binding: StoreBinding<Value> {
        let reference = self.reference
        let defaultValue = key.defaultValue
        let policy = key.policy
        return StoreBinding(
            get: { reference.value(default: defaultValue) },
            set: { newValue in
                do { try reference.set(newValue, declaring: policy) } catch { reference.reportUnthrown(error) }
            })
    }

    /// Removes the stored value, so reads return the default again (the removal syncs).
    ///
    /// - Returns: The tombstone's version, or `nil` when nothing was stored.
    /// - Throws: ``ConcordError`` when the store cannot be written; nothing is changed.
    @discardableResult
    public func reset() throws -> Version? { try reference.remove() }

    /// Whether a value is stored (registered defaults do not count).
    public var isSet: Bool { reference.isSet }

    /// Whether reads return a default (nothing is stored).
    public var isDefaulted: Bool { !isSet }

    /// Where the value a read returns comes from.
    public func lookup() -> StoredLookup<Value> { reference.lookup() }

    /// Reads, changes and writes the value in one write transaction (atomic across processes).
    /// `body` runs once, unless the store's memory map had to grow during the transaction or another
    /// write sharing its group commit failed: then it runs again from the start (see `Suite.update`).
    /// It must not touch the store itself.
    ///
    /// ```swift
    /// try profile.$launchCount.update { $0 += 1 }
    /// ```
    ///
    /// - Parameter body: Changes the current value in place.
    /// - Returns: What `body` returns.
    /// - Throws: ``ConcordError`` when the value cannot be read or written, or what `body` throws;
    ///   nothing is changed then.
    @discardableResult
    public func update<R>(_ body: (inout Value) throws -> R) throws -> R {
        try reference.update(default: key.defaultValue, declaring: key.policy, body)
    }

    /// The last error reading, writing or observing this key met, if any.
    public var lastError: ConcordError? { reference.lastError }
}
