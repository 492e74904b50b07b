/// The errors `ValueEncoder` and `ValueDecoder` throw: Swift's `EncodingError` and `DecodingError`,
/// each with a coding path and a debug description that reads on its own, for example
/// `expected Int at window.width, found string`.
///
/// <!-- assume: let path: [any CodingKey] = [PathKey(stringValue: "window"), PathKey(stringValue: "width")] -->
/// ```swift
/// throw CoderErrors.typeMismatch(Int.self, found: .string("wide"), at: path)
/// ```
enum CoderErrors {
    /// The sentence an error of the coder carries (its debug description), or the error's own description.
    static func reason(of error: any Error) -> String {
        switch error {
        case EncodingError.invalidValue(_, let context): return context.debugDescription
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.keyNotFound(_, let context), DecodingError.dataCorrupted(let context):
            return context.debugDescription
        default: return "\(error)"
        }
    }

    // MARK: Encoding

    /// A value a `Value` cannot hold (an integer out of `Int`'s range, NaN).
    static func unrepresentable(_ value: Any, _ reason: String, at path: [any CodingKey]) -> EncodingError {
        .invalidValue(value, .init(codingPath: path, debugDescription: "cannot encode the value at \(CodingPathText.describe(path)): \(reason)"))
    }

    /// `nil` where leaving it out is impossible: the top level or an array element.
    static func cannotHoldNil(at path: [any CodingKey]) -> EncodingError {
        .invalidValue(
            Optional<Int>.none as Any,
            .init(
                codingPath: path,
                debugDescription:
                    "cannot encode nil at \(CodingPathText.describe(path)): a Value cannot hold nil, and only a dictionary's key "
                    + "can be left out; store a value there instead"))
    }

    /// An `Encodable` type that used the encoder in a way that has no `Value` (two containers of
    /// different kinds for one value, a second value through one single-value container).
    static func misuse(_ reason: String, at path: [any CodingKey]) -> EncodingError {
        .invalidValue(reason, .init(codingPath: path, debugDescription: "cannot encode the value at \(CodingPathText.describe(path)): \(reason)"))
    }

    // MARK: Decoding

    /// The stored value has another type than the one asked for.
    static func typeMismatch(_ type: Any.Type, expected: String? = nil, found: Value, at path: [any CodingKey]) -> DecodingError {
        .typeMismatch(
            type,
            .init(
                codingPath: path,
                debugDescription:
                    "expected \(expected ?? "\(type)") at \(CodingPathText.describe(path)), found \(found.typeName)"))
    }

    /// The stored value has the right kind but does not fit the type (out of range, not exact, not parseable).
    static func doesNotFit(_ type: Any.Type, found: String, _ reason: String, at path: [any CodingKey]) -> DecodingError {
        .dataCorrupted(
            .init(
                codingPath: path,
                debugDescription:
                    "expected \(type) at \(CodingPathText.describe(path)), found \(found), \(reason)"))
    }

    /// Nothing is stored where a value is needed (past the end of an array, a missing `super`).
    static func valueNotFound(_ type: Any.Type, expected: String? = nil, _ what: String, at path: [any CodingKey]) -> DecodingError {
        .valueNotFound(
            type,
            .init(
                codingPath: path,
                debugDescription:
                    "expected \(expected ?? "\(type)") at \(CodingPathText.describe(path)), found \(what)"))
    }

    /// A dictionary without the key asked for; lists the keys it has.
    static func keyNotFound(_ key: any CodingKey, in fields: [String: Value], at path: [any CodingKey]) -> DecodingError {
        let keys = fields.keys.sorted()
        let shown = keys.prefix(10).map { "\"\($0)\"" }.joined(separator: ", ") + (keys.count > 10 ? ", …" : "")
        return .keyNotFound(
            key,
            .init(
                codingPath: path,
                debugDescription:
                    "no value for the key \"\(key.stringValue)\" at \(CodingPathText.describe(path + [key])); "
                    + (keys.isEmpty ? "the dictionary is empty" : "the dictionary has \(shown)")))
    }
}
