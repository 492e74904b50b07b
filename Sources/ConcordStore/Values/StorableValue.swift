import Foundation

/// A Swift type a suite can store: how it maps to the `Value` the store holds, and back.
/// The mapping is chosen by the type alone, so every way of reading and writing a key — `suite.get`
/// and `suite.set`, `Key`, `@Stored`, `@Setting`, `@Exclusive`, the CLI — stores it the same way.
///
/// Store-native types conform already: `String`, `Int`, `Double`, `Float`, `Bool`, `Data`, `Date`,
/// `URL`, `UUID`, and arrays of storable values and dictionaries of them keyed by a `StorableDictionaryKey`
/// (`String`, the integer types, `UUID`, …). An optional is stored as its
/// wrapped value, and `nil` means "nothing stored" (setting `nil` removes the key).
///
/// Declare the conformance for your own types; the requirements come for free for enums with raw
/// values (stored as the raw value) and `Codable` types (stored as the structure they encode to,
/// dates and data natively):
///
/// ```swift
/// enum Theme: String, StorableValue { case light, dark }
/// struct Window: Codable, StorableValue { var width: Int; var height: Int }
///
/// try suite.set(Theme.dark, forKey: "theme")
/// try suite.set(Window(width: 800, height: 600), forKey: "window")
/// let window = try suite.get("window", as: Window.self)
/// ```
///
/// Or implement the two requirements to store a type your own way:
///
/// ```swift
/// extension Measurement<UnitTemperature>: StorableValue {
///     public static var storedTypeName: String { "temperature" }
///     public init(storedValue: Value) throws {
///         guard case .double(let celsius) = storedValue else { throw ConcordError.typeMismatch(stored: storedValue, requested: "temperature") }
///         self.init(value: celsius, unit: .celsius)
///     }
///     public func storedValue() throws -> Value? { .double(converted(to: .celsius).value) }
/// }
/// ```
public protocol StorableValue: Sendable {
    /// The type's name in type-mismatch errors, e.g. `Int`, `[String]` or `Theme`.
    static var storedTypeName: String { get }
    /// Converts from a stored value.
    ///
    /// - Throws: ``ConcordError/typeMismatch(stored:requested:)`` (or another error) when the stored
    ///   value does not hold a `Self`.
    init(storedValue: Value) throws
    /// The value to store, or `nil` for "nothing stored" (only an optional's `nil` says that).
    ///
    /// - Throws: when the value cannot be represented (a `Codable` type whose encoding fails).
    func storedValue() throws -> Value?
}

// MARK: - Store-native types

extension Value: StorableValue {
    public static var storedTypeName: String { "value" }
    public init(storedValue: Value) { self = storedValue }
    public func storedValue() -> Value? { self }
}

/// `String` is stored natively (`Value.string`).
extension String: StorableValue {
    public static var storedTypeName: String { "String" }
    public init(storedValue: Value) throws {
        guard case .string(let v) = storedValue else { throw ConcordError.typeMismatch(stored: storedValue, requested: Self.storedTypeName) }
        self = v
    }
    public func storedValue() -> Value? { .string(self) }
}

/// An `Int` reads only a stored `.int`: a `.double` (even `3.0`) or a `.float` is a type mismatch,
/// never truncated.
extension Int: StorableValue {
    public static var storedTypeName: String { "Int" }
    public init(storedValue: Value) throws {
        guard case .int(let v) = storedValue else { throw ConcordError.typeMismatch(stored: storedValue, requested: Self.storedTypeName) }
        self = v
    }
    public func storedValue() -> Value? { .int(self) }
}

/// A `Double` reads a stored `.double`, a `.float` (widened: exact) and an `.int` the `Double` holds
/// exactly (magnitude up to 2^53, or a multiple of a power of two beyond); any other `.int` is a
/// type mismatch rather than a rounded number.
extension Double: StorableValue {
    public static var storedTypeName: String { "Double" }
    public init(storedValue: Value) throws {
        switch storedValue {
        case .double(let v): self = v
        case .float(let v): self = Double(v)
        case .int(let v):
            guard let exact = Double(exactly: v) else {
                throw ConcordError.typeMismatch(stored: "int \(v), which a Double cannot hold exactly", requested: Self.storedTypeName)
            }
            self = exact
        default: throw ConcordError.typeMismatch(stored: storedValue, requested: Self.storedTypeName)
        }
    }
    public func storedValue() -> Value? { .double(self) }
}

/// A `Float` is stored natively (its 32 bits) and reads only a stored `.float`: a `.double` or an
/// `.int` is a type mismatch, never rounded.
extension Float: StorableValue {
    public static var storedTypeName: String { "Float" }
    public init(storedValue: Value) throws {
        guard case .float(let v) = storedValue else { throw ConcordError.typeMismatch(stored: storedValue, requested: Self.storedTypeName) }
        self = v
    }
    public func storedValue() -> Value? { .float(self) }
}

/// A `UUID` is stored natively (its 16 bytes) and reads only a stored `.uuid`: a string is a type
/// mismatch (the `Codable` decoder, which must read what `UUID`'s own `Codable` wrote, also takes a string).
extension UUID: StorableValue {
    public static var storedTypeName: String { "UUID" }
    public init(storedValue: Value) throws {
        guard case .uuid(let v) = storedValue else { throw ConcordError.typeMismatch(stored: storedValue, requested: Self.storedTypeName) }
        self = v
    }
    public func storedValue() -> Value? { .uuid(self) }
}

/// `Bool` is stored natively (`Value.bool`).
extension Bool: StorableValue {
    public static var storedTypeName: String { "Bool" }
    public init(storedValue: Value) throws {
        guard case .bool(let v) = storedValue else { throw ConcordError.typeMismatch(stored: storedValue, requested: Self.storedTypeName) }
        self = v
    }
    public func storedValue() -> Value? { .bool(self) }
}

/// `Data` is stored natively (`Value.data`).
extension Data: StorableValue {
    public static var storedTypeName: String { "Data" }
    public init(storedValue: Value) throws {
        guard case .data(let v) = storedValue else { throw ConcordError.typeMismatch(stored: storedValue, requested: Self.storedTypeName) }
        self = v
    }
    public func storedValue() -> Value? { .data(self) }
}

/// `Date` is stored natively (`Value.date`), exactly.
extension Date: StorableValue {
    public static var storedTypeName: String { "Date" }
    public init(storedValue: Value) throws {
        guard case .date(let v) = storedValue else { throw ConcordError.typeMismatch(stored: storedValue, requested: Self.storedTypeName) }
        self = v
    }
    public func storedValue() -> Value? { .date(self) }
}

/// `URL` is stored natively (`Value.url`).
extension URL: StorableValue {
    public static var storedTypeName: String { "URL" }
    public init(storedValue: Value) throws {
        guard case .url(let v) = storedValue else { throw ConcordError.typeMismatch(stored: storedValue, requested: Self.storedTypeName) }
        self = v
    }
    public func storedValue() -> Value? { .url(self) }
}

/// An optional is stored as its wrapped value; `nil` means nothing is stored (setting it removes the key).
extension Optional: StorableValue where Wrapped: StorableValue {
    public static var storedTypeName: String { Wrapped.storedTypeName + "?" }
    public init(storedValue: Value) throws { self = .some(try Wrapped(storedValue: storedValue)) }
    public func storedValue() throws -> Value? { try self?.storedValue() }
}

/// An array of storable values is stored as `Value.array`.
extension Array: StorableValue where Element: StorableValue {
    public static var storedTypeName: String { "[\(Element.storedTypeName)]" }
    public init(storedValue: Value) throws {
        guard case .array(let items) = storedValue else { throw ConcordError.typeMismatch(stored: storedValue, requested: Self.storedTypeName) }
        self = try items.map { item in
            do { return try Element(storedValue: item) } catch {
                throw ConcordError.typeMismatch(stored: "array holding a \(item.typeName)", requested: Self.storedTypeName)
            }
        }
    }
    public func storedValue() throws -> Value? {
        .array(
            try map { element in
                guard let value = try element.storedValue() else {
                    throw ConcordError.unsupportedValue(key: "", reason: "an array element is nil, which a stored array cannot hold")
                }
                return value
            })
    }
}

/// A dictionary of storable values keyed by a `StorableDictionaryKey` (`String`, an integer, `UUID`, an
/// enum that declares it, …) is stored as `Value.dictionary`, each key as its `storedKey` string.
extension Dictionary: StorableValue where Key: StorableDictionaryKey, Value: StorableValue {
    public static var storedTypeName: String { "[\(Key.self): \(Value.storedTypeName)]" }
    public init(storedValue: Concord.Value) throws {
        guard case .dictionary(let items) = storedValue else { throw ConcordError.typeMismatch(stored: storedValue, requested: Self.storedTypeName) }
        var result = [Key: Value](minimumCapacity: items.count)
        for (stored, item) in items {
            guard let key = Key.key(storedAs: stored) else { throw Self.keyMismatch(in: items) }
            let value: Value
            do { value = try Value(storedValue: item) } catch {
                throw ConcordError.typeMismatch(stored: "dictionary holding a \(item.typeName)", requested: Self.storedTypeName)
            }
            guard result.updateValue(value, forKey: key) == nil else { throw Self.keyMismatch(in: items) }
        }
        self = result
    }
    /// What is wrong with the keys of `items`: the first key (in string order) that is not a `Key`, or
    /// the first two that read as one.
    private static func keyMismatch(in items: [String: Concord.Value]) -> ConcordError {
        var spellings: [Key: String] = [:]
        for stored in items.keys.sorted() {
            guard let key = Key.key(storedAs: stored) else {
                return ConcordError.typeMismatch(
                    stored: "dictionary whose key \(String(reflecting: stored)) is not a \(Key.self)", requested: storedTypeName)
            }
            if let earlier = spellings.updateValue(stored, forKey: key) {
                return ConcordError.typeMismatch(
                    stored: "dictionary whose keys \(String(reflecting: earlier)) and \(String(reflecting: stored)) both read as the \(Key.self) \(key)",
                    requested: storedTypeName)
            }
        }
        return ConcordError.typeMismatch(stored: "dictionary", requested: storedTypeName)
    }
    public func storedValue() throws -> Concord.Value? {
        var items = [String: Concord.Value](minimumCapacity: count)
        for (key, value) in self {
            // A nil entry (of an optional value type) is left out, as "nothing stored" is for a key.
            guard let stored = try value.storedValue() else { continue }
            guard items.updateValue(stored, forKey: key.storedKey) == nil else {
                throw ConcordError.unsupportedValue(
                    key: "", reason: "two keys of the dictionary are stored as the same string \(String(reflecting: key.storedKey))")
            }
        }
        return .dictionary(items)
    }
}

// MARK: - Enums and Codable types: declare the conformance, the mapping comes with it

extension StorableValue where Self: RawRepresentable, RawValue: StorableValue {
    public static var storedTypeName: String { "\(Self.self)" }
    public init(storedValue: Value) throws { self = try Self.fromRawValue(storedValue) }
    public func storedValue() throws -> Value? { try rawValue.storedValue() }

    fileprivate static func fromRawValue(_ stored: Value) throws -> Self {
        let raw: RawValue
        do { raw = try RawValue(storedValue: stored) } catch { throw ConcordError.typeMismatch(stored: stored, requested: storedTypeName) }
        guard let value = Self(rawValue: raw) else {
            throw ConcordError.typeMismatch(stored: "\(RawValue.storedTypeName) \(raw)", requested: storedTypeName)
        }
        return value
    }
}

extension StorableValue where Self: Codable {
    public static var storedTypeName: String { "\(Self.self)" }
    public init(storedValue: Value) throws {
        do { self = try ValueDecoder().decode(Self.self, from: storedValue) } catch {
            throw ConcordError.typeMismatch(stored: "\(storedValue.typeName) (\(CoderErrors.reason(of: error)))", requested: Self.storedTypeName)
        }
    }
    public func storedValue() throws -> Value? {
        do { return try ValueEncoder().encode(self) } catch {
            throw ConcordError.unsupportedValue(key: "", reason: CoderErrors.reason(of: error))
        }
    }
}

/// An enum with raw values that is also `Codable` is stored as its raw value.
extension StorableValue where Self: RawRepresentable & Codable, RawValue: StorableValue {
    public static var storedTypeName: String { "\(Self.self)" }
    public init(storedValue: Value) throws { self = try Self.fromRawValue(storedValue) }
    public func storedValue() throws -> Value? { try rawValue.storedValue() }
}
