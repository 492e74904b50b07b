/// One place in the `Value` tree that `ValueEncoder` builds. An `Encodable` type fills a node with
/// one value, or turns it into a dictionary or an array of child nodes; nested containers and
/// super-encoders write into children, so the tree is only turned into a `Value` (`resolve()`)
/// once every container is done.
///
/// ```swift
/// let root = EncodingNode(codingPath: [], nilLeavesOut: false)
/// root.becomeKeyed()
/// try root.child(forKey: PathKey(stringValue: "width")).set(.int(800))
/// try root.resolve()   // .dictionary(["width": .int(800)])
/// ```
final class EncodingNode {
    enum Content { case empty, null, value(Value), keyed, unkeyed }

    let codingPath: [any CodingKey]
    /// Whether `nil` here means "leave the key out" (a dictionary's entry) rather than an error.
    let nilLeavesOut: Bool
    private(set) var content: Content = .empty
    private var fields: [String: EncodingNode] = [:]
    private var items: [EncodingNode] = []
    private var misuse: EncodingError?

    init(codingPath: [any CodingKey], nilLeavesOut: Bool) {
        self.codingPath = codingPath
        self.nilLeavesOut = nilLeavesOut
    }

    var itemCount: Int { items.count }

    /// Stores one value here; a second value, or a value after a container, is an error.
    func set(_ value: Value) throws {
        guard case .empty = content else { throw CoderErrors.misuse("a value was encoded after \(describe(content))", at: codingPath) }
        content = .value(value)
    }

    /// Stores `nil`: the entry is left out of its dictionary; anywhere else it is an error.
    func setNil() throws {
        guard nilLeavesOut else { throw CoderErrors.cannotHoldNil(at: codingPath) }
        guard case .empty = content else { throw CoderErrors.misuse("nil was encoded after \(describe(content))", at: codingPath) }
        content = .null
    }

    /// Makes this node a dictionary (it stays one if it already is: a subclass and its superclass
    /// may share one encoder). Any other content is kept and reported by `resolve()`.
    func becomeKeyed() {
        switch content {
        case .empty: content = .keyed
        case .keyed: break
        default: misuse = misuse ?? CoderErrors.misuse("a keyed container was asked for after \(describe(content))", at: codingPath)
        }
    }

    /// Makes this node an array (it stays one if it already is).
    func becomeUnkeyed() {
        switch content {
        case .empty: content = .unkeyed
        case .unkeyed: break
        default: misuse = misuse ?? CoderErrors.misuse("an unkeyed container was asked for after \(describe(content))", at: codingPath)
        }
    }

    /// A new, empty entry of this dictionary for `key`, replacing any earlier one.
    func child(forKey key: any CodingKey) -> EncodingNode {
        let node = EncodingNode(codingPath: codingPath + [key], nilLeavesOut: true)
        fields[key.stringValue] = node
        return node
    }

    /// Stores `value` for `key` (`nil` leaves the key out, removing any earlier entry).
    func setField(_ value: Value?, forKey key: any CodingKey) {
        guard let value else {
            fields[key.stringValue] = nil
            return
        }
        let node = EncodingNode(codingPath: codingPath + [key], nilLeavesOut: true)
        node.content = .value(value)
        fields[key.stringValue] = node
    }

    /// A new, empty element at the end of this array.
    func appendChild() -> EncodingNode {
        let node = EncodingNode(codingPath: codingPath + [PathKey(index: items.count)], nilLeavesOut: false)
        items.append(node)
        return node
    }

    /// Appends `value` to this array.
    func append(_ value: Value) {
        appendChild().content = .value(value)
    }

    /// The path of the next element of this array, for errors about it.
    var nextItemPath: [any CodingKey] { codingPath + [PathKey(index: items.count)] }

    /// The `Value` this node holds, or `nil` for a `nil` that leaves its key out. A node nothing was
    /// encoded into is an empty dictionary, as with `JSONEncoder`.
    func resolve() throws -> Value? {
        if let misuse { throw misuse }
        switch content {
        case .empty: return .dictionary([:])
        case .null: return nil
        case .value(let value): return value
        case .keyed:
            var dictionary: [String: Value] = [:]
            dictionary.reserveCapacity(fields.count)
            for (key, node) in fields {
                if let value = try node.resolve() { dictionary[key] = value }
            }
            return .dictionary(dictionary)
        case .unkeyed:
            var array: [Value] = []
            array.reserveCapacity(items.count)
            for node in items {
                guard let value = try node.resolve() else { throw CoderErrors.cannotHoldNil(at: node.codingPath) }
                array.append(value)
            }
            return .array(array)
        }
    }

    private func describe(_ content: Content) -> String {
        switch content {
        case .empty: "nothing"
        case .null: "nil"
        case .value: "a value"
        case .keyed: "a keyed container"
        case .unkeyed: "an unkeyed container"
        }
    }
}
