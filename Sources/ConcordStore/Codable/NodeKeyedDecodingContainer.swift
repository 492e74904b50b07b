/// A keyed container over a `.dictionary`'s entries. A missing key reads as `nil` (`decodeNil`,
/// `decodeIfPresent`) or is a `keyNotFound` error naming the keys the dictionary has.
///
/// <!-- assume:
/// let decoder: any Decoder = given()
/// enum CodingKeys: String, CodingKey { case width, height, title }
/// var names: [String] = []
/// -->
/// ```swift
/// let c = try decoder.container(keyedBy: CodingKeys.self)
/// let width = try c.decode(Int.self, forKey: .width)
/// let title = try c.decodeIfPresent(String.self, forKey: .title)   // nil when absent
/// ```
struct NodeKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let fields: [String: Value]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { fields.keys.sorted().compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { fields[key.stringValue] != nil }
    func decodeNil(forKey key: Key) throws -> Bool { fields[key.stringValue] == nil }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try ScalarDecoding.bool(field(key), at: path(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try ScalarDecoding.string(field(key), at: path(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try ScalarDecoding.double(field(key), at: path(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try ScalarDecoding.float(field(key), at: path(key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try integer(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try integer(type, key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try NodeDecoder(value: field(key), codingPath: path(key)).decode(T.self)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try NodeDecoder(value: field(key), codingPath: path(key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try NodeDecoder(value: field(key), codingPath: path(key)).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        NodeDecoder(value: fields[PathKey.super.stringValue], codingPath: codingPath + [PathKey.super])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        NodeDecoder(value: fields[key.stringValue], codingPath: path(key))
    }

    private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    private func field(_ key: Key) throws -> Value {
        guard let value = fields[key.stringValue] else { throw CoderErrors.keyNotFound(key, in: fields, at: codingPath) }
        return value
    }

    private func integer<I: FixedWidthInteger>(_ type: I.Type, _ key: Key) throws -> I {
        try ScalarDecoding.integer(type, field(key), at: path(key))
    }
}
