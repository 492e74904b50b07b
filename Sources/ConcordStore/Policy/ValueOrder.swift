/// The total order max/min keys and set members follow: numbers by value, strings by their UTF-8
/// bytes, dates by time; values of different types by type (`int`, `double`, `date`, `string`, then
/// the rest, with `float` and `uuid` last, so orders between older kinds never moved), and values that compare equal (`0.0` and `-0.0`) by their encoded bytes. Every replica
/// orders alike, so merges that pick an extreme are deterministic.
///
/// ```swift
/// ValueOrder.compare(.int(2), .int(10)) < 0        // true
/// ValueOrder.isComparable(.bool(true))              // false: max/min refuse it
/// ```
package enum ValueOrder {
    /// Whether max and min accept the value: `Int`, `Double`, `Float`, `String` or `Date`.
    package static func isComparable(_ value: Value) -> Bool {
        switch value {
        case .int, .double, .float, .string, .date: true
        default: false
        }
    }

    /// Negative, zero or positive as `a` sorts before, with or after `b`.
    package static func compare(_ a: Value, _ b: Value) -> Int {
        let (ra, rb) = (rank(a), rank(b))
        if ra != rb { return ra < rb ? -1 : 1 }
        let natural: Int
        switch (a, b) {
        case (.int(let x), .int(let y)): natural = x < y ? -1 : (x > y ? 1 : 0)
        case (.double(let x), .double(let y)): natural = x < y ? -1 : (x > y ? 1 : 0)
        case (.float(let x), .float(let y)): natural = x < y ? -1 : (x > y ? 1 : 0)
        case (.date(let x), .date(let y)):
            let (s, t) = (x.timeIntervalSinceReferenceDate, y.timeIntervalSinceReferenceDate)
            natural = s < t ? -1 : (s > t ? 1 : 0)
        case (.string(let x), .string(let y)): natural = bytes(Array(x.utf8), Array(y.utf8))
        case (.bool(let x), .bool(let y)): natural = x == y ? 0 : (x ? 1 : -1)
        case (.url(let x), .url(let y)): natural = bytes(Array(x.absoluteString.utf8), Array(y.absoluteString.utf8))
        case (.data(let x), .data(let y)): natural = bytes(Array(x), Array(y))
        default: natural = 0
        }
        if natural != 0 { return natural }
        // Equal by value (or collections): the encoded bytes decide, so the order is total.
        return bytes((try? ValueCodec.encode(a)) ?? [], (try? ValueCodec.encode(b)) ?? [])
    }

    private static func rank(_ value: Value) -> Int {
        switch value {
        case .int: 0
        case .double: 1
        case .date: 2
        case .string: 3
        case .bool: 4
        case .url: 5
        case .data: 6
        case .array: 7
        case .dictionary: 8
        case .float: 9
        case .uuid: 10
        }
    }

    private static func bytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a == b ? 0 : (a.lexicographicallyPrecedes(b) ? -1 : 1)
    }
}
