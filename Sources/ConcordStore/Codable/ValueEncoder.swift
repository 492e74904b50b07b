/// Encodes an `Encodable` value straight into the `Value` a suite stores, keeping what `Value`
/// holds natively: a `Date` stays a `.date` (exactly), `Data` a `.data`, a `URL` a `.url`.
///
/// The mapping: `String` → `.string`, `Bool` → `.bool`, every integer type → `.int` (one outside
/// `Int`'s range is an error), `Float`/`Double` → `.double` (NaN is an error), keyed containers →
/// `.dictionary`, unkeyed containers → `.array`. `nil` for a dictionary's key leaves the key out
/// (`Value` has no null); `nil` anywhere else is an error. Errors are `EncodingError`s whose debug
/// description names the coding path, e.g. `cannot encode the value at limits.big: …`.
///
/// ```swift
/// struct Window: Codable { var width: Int; var title: String?; var opened: Date }
/// let value = try ValueEncoder().encode(Window(width: 800, title: nil, opened: Date()))
/// // .dictionary(["width": .int(800), "opened": .date(…)])
/// ```
package struct ValueEncoder: Sendable {
    package init() {}

    /// The `Value` that `value` encodes to; the same input always gives the same `Value`.
    package func encode<T: Encodable>(_ value: T) throws -> Value {
        let root = EncodingNode(codingPath: [], nilLeavesOut: false)
        try NodeEncoder.encode(value, into: root)
        if case .empty = root.content {
            throw CoderErrors.misuse("\(T.self) did not encode anything", at: [])
        }
        guard let encoded = try root.resolve() else { throw CoderErrors.cannotHoldNil(at: []) }
        return encoded
    }
}
