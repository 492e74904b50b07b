import Foundation

/// How the encoder maps Swift's scalars to `Value`: strings, booleans, every integer width (as
/// `.int`, if it fits), `Double` as `.double` and `Float` as `.float` (never NaN), and `Date`, `Data`,
/// `URL` and `UUID` as themselves rather than through their own `Codable` conformances.
///
/// ```swift
/// try ScalarEncoding.integer(UInt8(7), at: [])        // .int(7)
/// try ScalarEncoding.integer(UInt64.max, at: [])      // throws: above Int.max
/// ScalarEncoding.native(URL(string: "https://a.b")!)  // .url(https://a.b)
/// ```
enum ScalarEncoding {
    static func integer<I: FixedWidthInteger>(_ value: I, at path: [any CodingKey]) throws -> Value {
        guard let int = Int(exactly: value) else {
            let bound = value > 0 ? "above Int.max (\(Int.max))" : "below Int.min (\(Int.min))"
            throw CoderErrors.unrepresentable(value, "the \(I.self) \(value) is \(bound), outside the integers a Value can hold", at: path)
        }
        return .int(int)
    }

    static func double(_ value: Double, at path: [any CodingKey]) throws -> Value {
        guard !value.isNaN else { throw CoderErrors.unrepresentable(value, "NaN is not equal to itself, so Concord refuses it", at: path) }
        return .double(value)
    }

    static func float(_ value: Float, at path: [any CodingKey]) throws -> Value {
        guard !value.isNaN else { throw CoderErrors.unrepresentable(value, "NaN is not equal to itself, so Concord refuses it", at: path) }
        return .float(value)
    }

    /// The `Value` a type `Value` holds natively (`Date`, `Data`, `URL`, `UUID`), or `nil` for any other type.
    /// A URL is stored absolute, as the store reads it back.
    static func native<T>(_ value: T) -> Value? {
        switch value {
        case let date as Date: .date(date)
        case let data as Data: .data(data)
        case let url as URL: .url(url.absoluteURL)
        case let uuid as UUID: .uuid(uuid)
        default: nil
        }
    }
}
