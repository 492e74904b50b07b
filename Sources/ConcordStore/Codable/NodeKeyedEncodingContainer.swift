/// A keyed container that writes a dictionary's entries into its node; `nil` leaves the key out.
///
/// <!-- assume:
/// let encoder: any Encoder = given()
/// enum CodingKeys: String, CodingKey { case width, height, title }
/// -->
/// ```swift
/// var c = encoder.container(keyedBy: CodingKeys.self)
/// try c.encode(800, forKey: .width)          // "width": .int(800)
/// try c.encodeIfPresent(nil as Int?, forKey: .height)   // no "height" entry
/// ```
struct NodeKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodingNode

    var codingPath: [any CodingKey] { node.codingPath }

    mutating func encodeNil(forKey key: Key) throws { node.setField(nil, forKey: key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { node.setField(.bool(value), forKey: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { node.setField(.string(value), forKey: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { node.setField(try ScalarEncoding.double(value, at: path(key)), forKey: key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { node.setField(try ScalarEncoding.float(value, at: path(key)), forKey: key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { node.setField(.int(value), forKey: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int128, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt128, forKey key: Key) throws { try integer(value, key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try NodeEncoder.encode(value, into: node.child(forKey: key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.child(forKey: key)).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.child(forKey: key)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.child(forKey: PathKey.super)) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { NodeEncoder(node: node.child(forKey: key)) }

    private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    private func integer<I: FixedWidthInteger>(_ value: I, _ key: Key) throws {
        node.setField(try ScalarEncoding.integer(value, at: path(key)), forKey: key)
    }
}
