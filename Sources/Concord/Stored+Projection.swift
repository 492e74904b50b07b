/// What `$name` of a `Stored` property gives beside its wrapped value: the value to read and write,
/// the change stream, a reset, whether the value is set, a throwing set and an atomic
/// read-modify-write. `$name` is the property itself: hand it to code that should read and write the
/// value without knowing where it lives.
///
/// ```swift
/// @Stored("launchCount", in: suite) var launchCount = 0
///
/// try $launchCount.update { $0 += 1 }        // atomic across processes
/// if !$launchCount.isSet { showOnboarding() }
/// try $launchCount.reset()
///
/// func bump(_ count: Stored<Int>) { count.value += 1 }
/// bump($launchCount)
/// ```
extension Stored {
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
    public func set(_ value: T) throws -> Version? { try reference.set(value, declaring: key.policy) }

    /// The value a read returns now: the stored value, else the registered default, else the key's
    /// default. Setting writes through, and a failed write is handled as the wrapper's setter
    /// handles it (kept as ``lastError`` and reported to the unhandled-error handler, ``ConcordError/setUnhandledErrorHandler(_:)``).
    ///
    /// <!-- assume: @Stored("username", in: suite) var username = "Guest" -->
    /// ```swift
    /// let name = $username
    /// name.value = name.value.capitalized
    /// ```
    public var value: T {
        get { reference.value(default: key.defaultValue) }
        nonmutating set {
            do { try reference.set(newValue, declaring: key.policy) } catch { reference.reportUnthrown(error) }
        }
    }

    /// Removes the stored value, so reads return the default again (the removal syncs).
    ///
    /// ```swift
    /// try profile.$username.reset()
    /// ```
    ///
    /// - Returns: The tombstone's version, or `nil` when nothing was stored.
    /// - Throws: ``ConcordError`` when the store cannot be written; nothing is changed.
    @discardableResult
    public func reset() throws -> Version? { try reference.remove() }

    /// Whether a value is stored (registered defaults do not count); `false`: reads return a default.
    public var isSet: Bool { reference.isSet }

    /// Reads, changes and writes the value in one write transaction (atomic across processes).
    /// `body` runs once, unless the store's memory map had to grow during the transaction or another
    /// write sharing its group commit failed: then it runs again from the start. It must not touch
    /// the store itself.
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
    public func update<R>(_ body: (inout T) throws -> R) throws -> R {
        try reference.update(default: key.defaultValue, declaring: key.policy, body)
    }

    /// The last error reading, writing or observing this key met, if any.
    public var lastError: ConcordError? { reference.lastError }
}
