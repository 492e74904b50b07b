import Foundation

/// The `Decoder` that `ValueDecoder` hands to `init(from:)`: it reads one value of the tree, or
/// nothing (`nil`) where a dictionary has no entry, which a single-value container reads as `nil`.
///
/// ```swift
/// try NodeDecoder(value: .int(3), codingPath: []).decode(Int.self)   // 3
/// ```
struct NodeDecoder: Decoder {
    let value: Value?
    let codingPath: [any CodingKey]

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        switch value {
        case .dictionary(let fields): return KeyedDecodingContainer(NodeKeyedDecodingContainer<Key>(fields: fields, codingPath: codingPath))
        case nil: throw CoderErrors.valueNotFound([String: Value].self, expected: "a dictionary", "nothing", at: codingPath)
        case let other?: throw CoderErrors.typeMismatch([String: Value].self, expected: "a dictionary", found: other, at: codingPath)
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch value {
        case .array(let items): return NodeUnkeyedDecodingContainer(items: items, codingPath: codingPath)
        case nil: throw CoderErrors.valueNotFound([Value].self, expected: "an array", "nothing", at: codingPath)
        case let other?: throw CoderErrors.typeMismatch([Value].self, expected: "an array", found: other, at: codingPath)
        }
    }

    func singleValueContainer() -> any SingleValueDecodingContainer {
        NodeSingleValueDecodingContainer(decoder: self)
    }

    /// Decodes a `T` from this value: `Date`, `Data`, `URL`, `UUID` (and `Decimal` written as a number)
    /// by `ScalarDecoding`'s rules, any other type through its own `init(from:)`.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == Date.self { return try ScalarDecoding.date(value, at: codingPath) as! T }
        if T.self == Data.self { return try ScalarDecoding.data(value, at: codingPath) as! T }
        if T.self == URL.self { return try ScalarDecoding.url(value, at: codingPath) as! T }
        if T.self == UUID.self { return try ScalarDecoding.uuid(value, at: codingPath) as! T }
        if T.self == Decimal.self, let decimal = ScalarDecoding.decimal(value) { return decimal as! T }
        return try T(from: self)
    }
}
