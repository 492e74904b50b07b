/// The `Encoder` that `ValueEncoder` hands to `encode(to:)`: its containers write into one node of
/// the tree being built.
///
/// ```swift
/// let root = EncodingNode(codingPath: [], nilLeavesOut: false)
/// try NodeEncoder.encode(["a": 1], into: root)
/// try root.resolve()   // .dictionary(["a": .int(1)])
/// ```
struct NodeEncoder: Encoder {
    let node: EncodingNode

    var codingPath: [any CodingKey] { node.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeKeyed()
        return KeyedEncodingContainer(NodeKeyedEncodingContainer<Key>(node: node))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeUnkeyed()
        return NodeUnkeyedEncodingContainer(node: node)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        NodeSingleValueEncodingContainer(node: node)
    }

    /// Encodes `value` into `node`: `Date`, `Data` and `URL` as themselves, any other type through
    /// its own `encode(to:)`.
    static func encode<T: Encodable>(_ value: T, into node: EncodingNode) throws {
        if let native = ScalarEncoding.native(value) {
            try node.set(native)
        } else {
            try value.encode(to: NodeEncoder(node: node))
        }
    }
}
