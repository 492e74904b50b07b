/// An unkeyed container that appends an array's elements to its node; `nil` is an error (an array
/// element cannot be left out).
///
/// <!-- assume:
/// let encoder: any Encoder = given()
/// enum CodingKeys: String, CodingKey { case width, height, title }
/// -->
/// ```swift
/// var c = encoder.unkeyedContainer()
/// try c.encode("a")                 // [.string("a")]
/// try c.encode(nil as String?)      // throws: a Value cannot hold nil
/// ```
struct NodeUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let node: EncodingNode

    var codingPath: [any CodingKey] { node.codingPath }
    var count: Int { node.itemCount }

    mutating func encodeNil() throws { throw CoderErrors.cannotHoldNil(at: node.nextItemPath) }
    mutating func encode(_ value: Bool) throws { node.append(.bool(value)) }
    mutating func encode(_ value: String) throws { node.append(.string(value)) }
    mutating func encode(_ value: Double) throws { node.append(try ScalarEncoding.double(value, at: node.nextItemPath)) }
    mutating func encode(_ value: Float) throws { node.append(try ScalarEncoding.float(value, at: node.nextItemPath)) }
    mutating func encode(_ value: Int) throws { node.append(.int(value)) }
    mutating func encode(_ value: Int8) throws { try integer(value) }
    mutating func encode(_ value: Int16) throws { try integer(value) }
    mutating func encode(_ value: Int32) throws { try integer(value) }
    mutating func encode(_ value: Int64) throws { try integer(value) }
    mutating func encode(_ value: Int128) throws { try integer(value) }
    mutating func encode(_ value: UInt) throws { try integer(value) }
    mutating func encode(_ value: UInt8) throws { try integer(value) }
    mutating func encode(_ value: UInt16) throws { try integer(value) }
    mutating func encode(_ value: UInt32) throws { try integer(value) }
    mutating func encode(_ value: UInt64) throws { try integer(value) }
    mutating func encode(_ value: UInt128) throws { try integer(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try NodeEncoder.encode(value, into: node.appendChild())
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.appendChild()).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.appendChild()).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.appendChild()) }

    private func integer<I: FixedWidthInteger>(_ value: I) throws {
        node.append(try ScalarEncoding.integer(value, at: node.nextItemPath))
    }
}
