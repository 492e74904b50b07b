/// A typed key: its name, its type, the value reads return when nothing is stored, and
/// optionally the suite it belongs to. Call sites that use it are checked by the compiler.
///
/// ```swift
/// enum Theme: String { case system, light, dark }
///
/// let launchCount = Key("launchCount", default: 0)
/// let theme = Key("theme", default: Theme.system)
/// let lastOpened = Key<Date?>("lastOpened")            // nil: not set
///
/// suite[launchCount] += 1
/// suite[theme] = .dark
/// let count = try suite.get(launchCount)                // throws instead of reporting errors
/// ```
///
/// The value type picks how it is stored (see `ValueCoding`): store-native types as themselves,
/// `RawRepresentable` types as their raw value, `Codable` types as their JSON structure, and
/// optionals as "not set" when `nil`.
public struct Key<Value: Sendable>: Sendable {
    /// The key's name in its suite (1–256 bytes of UTF-8; checked when the key is used).
    public let name: String
    /// What reads return when nothing is stored and no default is registered.
    public let defaultValue: Value
    /// The suite `@Stored(key)` uses, if the key is bound to one.
    public let suite: Suite?
    /// How values of this key are stored.
    public let coding: ValueCoding<Value>

    /// A key with an explicit coding.
    public init(_ name: String, default defaultValue: Value, suite: Suite? = nil, coding: ValueCoding<Value>) {
        self.name = name
        self.defaultValue = defaultValue
        self.suite = suite
        self.coding = coding
    }

    /// The same key, bound to `suite`.
    ///
    /// ```swift
    /// let username = Key("username", default: "Guest").bound(to: appSuite)
    /// @Stored(username) var name
    /// ```
    public func bound(to suite: Suite) -> Key {
        Key(name, default: defaultValue, suite: suite, coding: coding)
    }
}

// One initializer per kind of value. The combined constraints (`StorableValue & Codable`, …)
// are there so the most specific coding wins when a type is several of these at once.

extension Key where Value: StorableValue {
    /// A key of a store-native type (`String`, `Int`, `Double`, `Bool`, `Data`, `Date`, `URL`, arrays, dictionaries).
    public init(_ name: String, default defaultValue: Value, suite: Suite? = nil) {
        self.init(name, default: defaultValue, suite: suite, coding: .storable)
    }
}

extension Key where Value: StorableValue & Codable {
    /// A key of a store-native type (stored as itself, not as JSON).
    public init(_ name: String, default defaultValue: Value, suite: Suite? = nil) {
        self.init(name, default: defaultValue, suite: suite, coding: .storable)
    }
}

extension Key where Value: RawRepresentable, Value.RawValue: StorableValue {
    /// A key of an enum (or other `RawRepresentable`), stored as its raw value.
    public init(_ name: String, default defaultValue: Value, suite: Suite? = nil) {
        self.init(name, default: defaultValue, suite: suite, coding: .rawRepresentable)
    }
}

extension Key where Value: RawRepresentable & Codable, Value.RawValue: StorableValue {
    /// A key of a `Codable` enum, stored as its raw value.
    public init(_ name: String, default defaultValue: Value, suite: Suite? = nil) {
        self.init(name, default: defaultValue, suite: suite, coding: .rawRepresentable)
    }
}

extension Key where Value: Codable {
    /// A key of a `Codable` type, stored as the structure its JSON maps to.
    public init(_ name: String, default defaultValue: Value, suite: Suite? = nil) {
        self.init(name, default: defaultValue, suite: suite, coding: .codable)
    }
}

extension Key where Value: OptionalValue, Value.Wrapped: StorableValue {
    /// An optional key of a store-native type: `nil` means not set.
    public init(_ name: String, default defaultValue: Value = nil, suite: Suite? = nil) {
        self.init(name, default: defaultValue, suite: suite, coding: .optional(.storable))
    }
}

extension Key where Value: OptionalValue & Codable, Value.Wrapped: StorableValue & Codable {
    /// An optional key of a store-native type: `nil` means not set.
    public init(_ name: String, default defaultValue: Value = nil, suite: Suite? = nil) {
        self.init(name, default: defaultValue, suite: suite, coding: .optional(.storable))
    }
}

extension Key where Value: OptionalValue, Value.Wrapped: RawRepresentable & Sendable, Value.Wrapped.RawValue: StorableValue {
    /// An optional key of an enum, stored as its raw value: `nil` means not set.
    public init(_ name: String, default defaultValue: Value = nil, suite: Suite? = nil) {
        self.init(name, default: defaultValue, suite: suite, coding: .optional(.rawRepresentable))
    }
}

extension Key where Value: OptionalValue & Codable, Value.Wrapped: RawRepresentable & Codable & Sendable, Value.Wrapped.RawValue: StorableValue {
    /// An optional key of a `Codable` enum, stored as its raw value: `nil` means not set.
    public init(_ name: String, default defaultValue: Value = nil, suite: Suite? = nil) {
        self.init(name, default: defaultValue, suite: suite, coding: .optional(.rawRepresentable))
    }
}

extension Key where Value: OptionalValue & Codable, Value.Wrapped: Codable & Sendable {
    /// An optional key of a `Codable` type: `nil` means not set.
    public init(_ name: String, default defaultValue: Value = nil, suite: Suite? = nil) {
        self.init(name, default: defaultValue, suite: suite, coding: .optional(.codable))
    }
}
