/// A single-value container over one value of the tree; `decodeNil()` is true only where nothing
/// is stored (a dictionary's missing entry reached through `superDecoder(forKey:)`).
///
/// <!-- assume:
/// let decoder: any Decoder = given()
/// enum CodingKeys: String, CodingKey { case width, height, title }
/// var names: [String] = []
/// -->
/// ```swift
/// let c = try decoder.singleValueContainer()
/// let level = try c.decode(Int.self)
/// ```
struct NodeSingleValueDecodingContainer: SingleValueDecodingContainer {
    let decoder: NodeDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }
    private var value: Value? { decoder.value }

    func decodeNil() -> Bool { value == nil }

    func decode(_ type: Bool.Type) throws -> Bool { try ScalarDecoding.bool(value, at: codingPath) }
    func decode(_ type: String.Type) throws -> String { try ScalarDecoding.string(value, at: codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try ScalarDecoding.double(value, at: codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try ScalarDecoding.float(value, at: codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: Int128.Type) throws -> Int128 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
    func decode(_ type: UInt128.Type) throws -> UInt128 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(type) }

    private func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        try ScalarDecoding.integer(type, value, at: codingPath)
    }
}
