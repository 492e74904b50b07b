/// A typed key: its name, its type, the value reads return when nothing is stored, and
/// optionally the suite it belongs to. Call sites that use it are checked by the compiler.
///
/// ```swift
/// enum Theme: String, StorableValue { case system, light, dark }
///
/// let launchCount = Key("launchCount", default: 0)
/// let theme = Key("theme", default: Theme.system)
/// let lastOpened = Key<Date?>("lastOpened")            // nil: not set
/// let launches = Key("launches", default: 0, policy: .counter)   // increments from every replica add up
///
/// suite[launchCount] += 1
/// suite[theme] = .dark
/// try suite.update(launches) { $0 += 1 }                // with a policy, the change is what merges
/// let count = try suite.get(launchCount)                // throws instead of reporting errors
/// ```
///
/// The value type decides how values are stored (see ``StorableValue``), the same way whoever reads or
/// writes the key: `suite.get`, `@Stored`, another process or the CLI. A key with a `policy` declares
/// it (see ``MergePolicy``) in the replica with its first write, and the declaration syncs.
public struct Key<T: StorableValue>: Sendable {
    /// The key's name in its suite (1–256 bytes of UTF-8; checked when the key is used).
    public let name: String
    /// What reads return when nothing is stored and no default is registered.
    public let defaultValue: T
    /// The suite `@Stored(key)` (``Stored/init(_:)``) uses, if the key is bound to one.
    public let suite: Suite?
    /// The merge policy a write through the key declares, if any (nil: whatever is declared, else lww).
    public let policy: MergePolicy?

    /// A key named `name` whose reads return `defaultValue` when nothing is stored; with `policy`,
    /// writes through it declare how concurrent changes merge.
    ///
    /// ```swift
    /// let username = Key("username", default: "Guest")
    /// let launchCount = Key("launchCount", default: 0, policy: .counter)
    /// ```
    ///
    /// - Parameters:
    ///   - name: The key's name in its suite (1–256 bytes of UTF-8).
    ///   - defaultValue: What reads return when nothing is stored and no default is registered.
    ///   - suite: The suite `@Stored(key)` uses, if the key is bound to one.
    ///   - policy: The merge policy the key's first write declares (nil: whatever is declared, else lww).
    public init(_ name: String, default defaultValue: T, suite: Suite? = nil, policy: MergePolicy? = nil) {
        self.name = name
        self.defaultValue = defaultValue
        self.suite = suite
        self.policy = policy
    }

    /// The same key, bound to `suite`.
    ///
    /// ```swift
    /// let username = Key("username", default: "Guest").bound(to: suite)
    /// @Stored(username) var name
    /// ```
    public func bound(to suite: Suite) -> Key {
        Key(name, default: defaultValue, suite: suite, policy: policy)
    }
}

extension Key where T: ExpressibleByNilLiteral {
    /// An optional key: reads return `nil` when nothing is stored.
    ///
    /// ```swift
    /// let lastOpened = Key<Date?>("lastOpened")
    /// ```
    public init(_ name: String, suite: Suite? = nil, policy: MergePolicy? = nil) {
        self.init(name, default: nil, suite: suite, policy: policy)
    }
}
