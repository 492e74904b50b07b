/// Decodes a `Decodable` type from the `Value` a suite stores: the mirror image of `ValueEncoder`,
/// strict about kinds (an `.int` is not a `String`), except for the reads that keep values written
/// through JSON by earlier versions readable: a `Date` from milliseconds since 1970 (`.int` or
/// `.double`) or an ISO 8601 `.string`, `Data` from a base64 `.string`, a `URL` from a `.string`,
/// a `Double`/`Float` from an `.int` it holds exactly, an integer from a whole `.double` in range,
/// and a `Decimal` from a number. A missing key reads as `nil` for an optional property.
///
/// Errors are `DecodingError`s with the coding path and a description that reads on its own,
/// e.g. `expected Int at window.width, found string`.
///
/// ```swift
/// struct Window: Codable { var width: Int; var title: String? }
/// let window = try ValueDecoder().decode(Window.self, from: .dictionary(["width": .int(800)]))
/// // Window(width: 800, title: nil)
/// ```
package struct ValueDecoder: Sendable {
    package init() {}

    /// The `T` that `value` holds; throws `DecodingError` when it does not hold one.
    package func decode<T: Decodable>(_ type: T.Type = T.self, from value: Value) throws -> T {
        try NodeDecoder(value: value, codingPath: []).decode(type)
    }
}
