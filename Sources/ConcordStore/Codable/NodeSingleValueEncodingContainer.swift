/// A single-value container that stores one value in its node. `nil` leaves the key out when the
/// node is a dictionary's entry, and is an error anywhere else.
///
/// <!-- assume:
/// let encoder: any Encoder = given()
/// enum CodingKeys: String, CodingKey { case width, height, title }
/// -->
/// ```swift
/// var c = encoder.singleValueContainer()
/// try c.encode(Date())   // .date(…), exactly
/// ```
struct NodeSingleValueEncodingContainer: SingleValueEncodingContainer {
    let node: EncodingNode

    var codingPath: [any CodingKey] { node.codingPath }

    mutating func encodeNil() throws { try node.setNil() }
    mutating func encode(_ value: Bool) throws { try node.set(.bool(value)) }
    mutating func encode(_ value: String) throws { try node.set(.string(value)) }
    mutating func encode(_ value: Double) throws { try node.set(try ScalarEncoding.double(value, at: codingPath)) }
    mutating func encode(_ value: Float) throws { try node.set(try ScalarEncoding.float(value, at: codingPath)) }
    mutating func encode(_ value: Int) throws { try node.set(.int(value)) }
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
        try NodeEncoder.encode(value, into: node)
    }

    private func integer<I: FixedWidthInteger>(_ value: I) throws {
        try node.set(try ScalarEncoding.integer(value, at: codingPath))
    }
}
