import Foundation

/// A Swift type a suite can store directly: `String`, `Int`, `Double`, `Bool`, `Data`, `Date`, `URL`,
/// and arrays and string-keyed dictionaries of those. Enums and `Codable` types go through the
/// `RawRepresentable` and `Codable` helpers on `Suite`.
///
/// ```swift
/// try suite.set(42, forKey: "answer")
/// let answer = try suite.get("answer", as: Int.self)   // 42
/// ```
public protocol StorableValue: Sendable {
    /// The name used in type-mismatch errors, e.g. `Int` or `[String]`.
    static var typeDescription: String { get }
    /// Converts from a stored value; `nil` when the stored value has another type.
    init?(storedValue: Value)
    /// The value to store.
    var storedValue: Value { get }
}

extension Value: StorableValue {
    public static var typeDescription: String { "value" }
    public init?(storedValue: Value) { self = storedValue }
    public var storedValue: Value { self }
}

extension String: StorableValue {
    public static var typeDescription: String { "String" }
    public init?(storedValue: Value) { guard case .string(let v) = storedValue else { return nil }; self = v }
    public var storedValue: Value { .string(self) }
}

extension Int: StorableValue {
    public static var typeDescription: String { "Int" }
    public init?(storedValue: Value) { guard case .int(let v) = storedValue else { return nil }; self = v }
    public var storedValue: Value { .int(self) }
}

extension Double: StorableValue {
    public static var typeDescription: String { "Double" }
    public init?(storedValue: Value) { guard case .double(let v) = storedValue else { return nil }; self = v }
    public var storedValue: Value { .double(self) }
}

extension Bool: StorableValue {
    public static var typeDescription: String { "Bool" }
    public init?(storedValue: Value) { guard case .bool(let v) = storedValue else { return nil }; self = v }
    public var storedValue: Value { .bool(self) }
}

extension Data: StorableValue {
    public static var typeDescription: String { "Data" }
    public init?(storedValue: Value) { guard case .data(let v) = storedValue else { return nil }; self = v }
    public var storedValue: Value { .data(self) }
}

extension Date: StorableValue {
    public static var typeDescription: String { "Date" }
    public init?(storedValue: Value) { guard case .date(let v) = storedValue else { return nil }; self = v }
    public var storedValue: Value { .date(self) }
}

extension URL: StorableValue {
    public static var typeDescription: String { "URL" }
    public init?(storedValue: Value) { guard case .url(let v) = storedValue else { return nil }; self = v }
    public var storedValue: Value { .url(self) }
}

extension Array: StorableValue where Element: StorableValue {
    public static var typeDescription: String { "[\(Element.typeDescription)]" }
    public init?(storedValue: Value) {
        guard case .array(let items) = storedValue else { return nil }
        var out: [Element] = []
        out.reserveCapacity(items.count)
        for item in items {
            guard let e = Element(storedValue: item) else { return nil }
            out.append(e)
        }
        self = out
    }
    public var storedValue: Value { .array(map(\.storedValue)) }
}

extension Dictionary: StorableValue where Key == String, Value: StorableValue {
    public static var typeDescription: String { "[String: \(Value.typeDescription)]" }
    public init?(storedValue: ConcordStore.Value) {
        guard case .dictionary(let items) = storedValue else { return nil }
        var out: [String: Value] = [:]
        out.reserveCapacity(items.count)
        for (k, item) in items {
            guard let e = Value(storedValue: item) else { return nil }
            out[k] = e
        }
        self = out
    }
    public var storedValue: ConcordStore.Value { .dictionary(mapValues(\.storedValue)) }
}
