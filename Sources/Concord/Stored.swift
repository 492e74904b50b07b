/// A property backed by a key in a suite — the analog of SwiftUI's `@AppStorage`, for any Swift
/// program, across processes.
///
/// <!-- assume: enum Keys { static let window = Key("window", default: "0 0 800 600").bound(to: suite) } -->
/// ```swift
/// struct Profile {
///     @Stored("username", in: suite) var username = "Guest"
///     @Stored("launchCount", in: suite) var launchCount = 0
///     @Stored("theme", in: suite) var theme = Theme.system     // enum Theme: String, StorableValue
///     @Stored("lastOpened", in: suite) var lastOpened: Date?   // nil: not set
///     @Stored(Keys.window) var window                          // a Key bound to a suite
/// }
///
/// let profile = Profile()
/// profile.username = "Ada"            // written through, durably
/// profile.$username.isSet             // true
/// try await profile.$username.reset() // back to "Guest"
/// for try await change in profile.$username.changes { print(change.value, change.origin) }
/// ```
///
/// Reading returns the stored value, else a default registered for the key, else the default
/// given here — also after a delete or a suite reset. A change made by this process, another
/// process or a sync is what the next read returns; reads are cached against the store's commit
/// stamp, so an unchanged read opens no transaction. Observation works: a read inside
/// `withObservationTracking` (or an ``UpdateHost``) is told when the key changes.
///
/// Setting cannot throw: a failed write leaves the stored value as it was, is kept as
/// ``Stored/lastError`` and goes to the unhandled-error handler (``ConcordError/setUnhandledErrorHandler(_:)``). Use `try $name.set(_:)`
/// (``Stored/set(_:)-63dau``) to get the error. Every write goes through the suite's one write path.
@propertyWrapper
public struct Stored<T: StorableValue>: StoreProperty {
    /// The key: its name and default value.
    public let key: Key<T>
    /// The shared per-key reference that caches and observes the value.
    @usableFromInline let reference: StoredReference<T>

    /// A property backed by `key` in `suite`.
    ///
    /// ```swift
    /// @Stored(Key("launchCount", default: 0), in: suite) var launchCount
    /// ```
    public init(_ key: Key<T>, in suite: Suite) {
        self.key = key
        self.reference = .shared(suite: suite, key: key.name)
    }

    /// A property backed by `key`, which must be bound to a suite (``Key/init(_:default:suite:policy:)``
    /// or ``Key/bound(to:)``).
    ///
    /// <!-- assume: let username = Key("username", default: "Guest").bound(to: suite) -->
    /// ```swift
    /// @Stored(username) var name
    /// ```
    public init(_ key: Key<T>) {
        guard let suite = key.suite else {
            preconditionFailure(
                "@Stored(key): the key \"\(key.name)\" is not bound to a suite; write @Stored(key, in: suite) or bind it with key.bound(to: suite)")
        }
        self.init(key, in: suite)
    }

    /// A property backed by `name` in `suite`; `wrappedValue` is what reads return when nothing is
    /// stored. With `policy`, writes declare how concurrent changes of the key merge.
    ///
    /// ```swift
    /// @Stored("username", in: suite) var username = "Guest"
    /// @Stored("launchCount", in: suite, policy: .counter) var launchCount = 0   // $launchCount.update { $0 += 1 }
    /// ```
    ///
    /// - Parameters:
    ///   - wrappedValue: What reads return when nothing is stored and no default is registered.
    ///   - name: The key's name in the suite.
    ///   - suite: The suite that holds the value.
    ///   - policy: The merge policy the first write declares (nil: whatever is declared, else lww).
    public init(wrappedValue: T, _ name: String, in suite: Suite, policy: MergePolicy? = nil) {
        self.init(Key(name, default: wrappedValue, policy: policy), in: suite)
    }

    /// The stored value, else the registered default, else the key's default. Setting writes through.
    public var wrappedValue: T {
        @inlinable get { reference.value(default: key.defaultValue) }
        nonmutating set { value = newValue }
    }

    /// `$name`: the property itself, for what the wrapped value does not say — ``Stored/value``
    /// to read and write, the change stream, ``Stored/reset()-8t8mg``, ``Stored/isSet``, a throwing
    /// ``Stored/set(_:)-63dau`` and an atomic ``Stored/update(_:)-6sqwo``. Pass it on where code should
    /// read and write the value without knowing where it lives.
    public var projectedValue: Stored<T> { self }
}

extension Stored where T: ExpressibleByNilLiteral {
    /// An optional property backed by `name` in `suite`: `nil` means not set (setting `nil` removes the key).
    ///
    /// ```swift
    /// @Stored("lastOpened", in: suite) var lastOpened: Date?
    /// ```
    public init(_ name: String, in suite: Suite, policy: MergePolicy? = nil) {
        self.init(Key(name, default: nil, policy: policy), in: suite)
    }
}
