/// An unkeyed container over an `.array`'s elements. An element is consumed only when it decodes,
/// so a caller may retry it as another type; reading past the end is a `valueNotFound` error.
///
/// <!-- assume:
/// let decoder: any Decoder = given()
/// enum CodingKeys: String, CodingKey { case width, height, title }
/// var names: [String] = []
/// -->
/// ```swift
/// var c = try decoder.unkeyedContainer()
/// while !c.isAtEnd { names.append(try c.decode(String.self)) }
/// ```
struct NodeUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let items: [Value]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(items: [Value], codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    /// `false` for every element (a `Value` is never nil); past the end, an error.
    mutating func decodeNil() throws -> Bool {
        _ = try next(Any?.self, expected: "a value")
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try consume(type) { try ScalarDecoding.bool($0, at: $1) } }
    mutating func decode(_ type: String.Type) throws -> String { try consume(type) { try ScalarDecoding.string($0, at: $1) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try consume(type) { try ScalarDecoding.double($0, at: $1) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try consume(type) { try ScalarDecoding.float($0, at: $1) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try integer(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try integer(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try consume(type) { try NodeDecoder(value: $0, codingPath: $1).decode(type) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try consume(KeyedDecodingContainer<NestedKey>.self, expected: "a dictionary") { try NodeDecoder(value: $0, codingPath: $1).container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try consume((any UnkeyedDecodingContainer).self, expected: "an array") { try NodeDecoder(value: $0, codingPath: $1).unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        try consume((any Decoder).self) { NodeDecoder(value: $0, codingPath: $1) }
    }

    /// The next element and its path; past the end, a `valueNotFound` error for `type`.
    private func next<T>(_ type: T.Type, expected: String? = nil) throws -> (Value, [any CodingKey]) {
        let path = codingPath + [PathKey(index: currentIndex)]
        guard !isAtEnd else {
            throw CoderErrors.valueNotFound(type, expected: expected, "the end of an array of \(items.count) element\(items.count == 1 ? "" : "s")", at: path)
        }
        return (items[currentIndex], path)
    }

    /// Decodes the next element with `body` and moves past it only if that succeeds.
    private mutating func consume<T>(_ type: T.Type, expected: String? = nil, _ body: (Value, [any CodingKey]) throws -> T) throws -> T {
        let (value, path) = try next(type, expected: expected)
        let decoded = try body(value, path)
        currentIndex += 1
        return decoded
    }

    private mutating func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        try consume(type) { try ScalarDecoding.integer(type, $0, at: $1) }
    }
}
