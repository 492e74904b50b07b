import Foundation

/// `RawRepresentable` enums and `Codable` types, stored through the value types they map to.
extension Suite {
    /// Reads an enum stored as its raw value.
    ///
    /// ```swift
    /// enum Theme: String { case light, dark }
    /// try suite.set(Theme.dark, forKey: "theme")
    /// let theme = try suite.get("theme", as: Theme.self)   // .dark
    /// ```
    public func get<T: RawRepresentable>(_ key: String, as type: T.Type = T.self) throws -> T? where T.RawValue: StorableValue {
        guard let raw = try get(key, as: T.RawValue.self) else { return nil }
        guard let value = T(rawValue: raw) else {
            throw StoreError.typeMismatch(suite: name, key: key, stored: "\(T.RawValue.typeDescription) \(raw)", requested: "\(T.self)")
        }
        return value
    }

    /// Stores an enum as its raw value.
    public func set<T: RawRepresentable>(_ value: T, forKey key: String) throws where T.RawValue: StorableValue {
        try set(value.rawValue, forKey: key)
    }

    /// Stores a `Codable` value as the typed structure its JSON maps to (objects become dictionaries).
    ///
    /// ```swift
    /// struct Window: Codable { var width: Int; var height: Int }
    /// try suite.setCodable(Window(width: 800, height: 600), forKey: "window")
    /// let w = try suite.getCodable("window", as: Window.self)
    /// ```
    public func setCodable<T: Encodable>(_ value: T, forKey key: String) throws {
        try set(try CodableBridge.value(from: value, key: key), forKey: key)
    }

    /// Reads a value stored with `setCodable`; a structure that does not decode as `T` is a type mismatch.
    public func getCodable<T: Decodable>(_ key: String, as type: T.Type = T.self) throws -> T? {
        guard let value = try value(forKey: key) else { return nil }
        do { return try CodableBridge.decode(T.self, from: value) } catch {
            throw StoreError.typeMismatch(suite: name, key: key, stored: value.typeName, requested: "\(T.self)")
        }
    }
}

/// Converts between `Codable` types and `Value`s through JSON.
public enum CodableBridge {
    public static func value<T: Encodable>(from value: T, key: String = "") throws -> Value {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .millisecondsSince1970
        do {
            let data = try encoder.encode(value)
            return try JSONValue.parse(data)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.unsupportedValue(key: key, reason: "it does not encode as JSON: \(error)")
        }
    }

    public static func decode<T: Decodable>(_ type: T.Type, from value: Value) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return try decoder.decode(T.self, from: try JSONValue.serialize(value))
    }
}
