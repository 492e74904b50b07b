import Foundation

/// How the decoder reads Swift's scalars from a `Value`: strictly by kind (an `.int` is not a
/// `String`), except the reads that keep values written through JSON by earlier versions readable:
/// a number as `Double`/`Float` when exact, a whole `.double` as an integer, a `Date` from
/// milliseconds since 1970 (`.int` or `.double`) or an ISO 8601 `.string`, `Data` from a base64
/// `.string`, a `URL` from a `.string`, a `UUID` from its `.string` (as `UUID`'s own `Codable`
/// wrote it), and a `Decimal` from a number. A native `.float` reads as `Float` and as `Double`.
///
/// ```swift
/// try ScalarDecoding.integer(UInt8.self, .int(7), at: [])        // 7
/// try ScalarDecoding.integer(UInt8.self, .int(300), at: [])      // throws: out of UInt8's range
/// try ScalarDecoding.date(.int(1_700_000_000_123), at: [])       // 2023-11-14 22:13:20.123 UTC
/// ```
enum ScalarDecoding {
    static func bool(_ stored: Value?, at path: [any CodingKey]) throws -> Bool {
        switch try required(stored, Bool.self, at: path) {
        case .bool(let value): return value
        case let other: throw CoderErrors.typeMismatch(Bool.self, found: other, at: path)
        }
    }

    static func string(_ stored: Value?, at path: [any CodingKey]) throws -> String {
        switch try required(stored, String.self, at: path) {
        case .string(let value): return value
        case let other: throw CoderErrors.typeMismatch(String.self, found: other, at: path)
        }
    }

    static func integer<I: FixedWidthInteger>(_ type: I.Type, _ stored: Value?, at path: [any CodingKey]) throws -> I {
        switch try required(stored, I.self, at: path) {
        case .int(let value):
            guard let exact = I(exactly: value) else { throw CoderErrors.doesNotFit(I.self, found: "int \(value)", "outside \(I.self)'s range", at: path) }
            return exact
        case .double(let value):
            guard let exact = I(exactly: value) else {
                throw CoderErrors.doesNotFit(I.self, found: "double \(value)", "not a whole number in \(I.self)'s range", at: path)
            }
            return exact
        case let other: throw CoderErrors.typeMismatch(I.self, found: other, at: path)
        }
    }

    static func double(_ stored: Value?, at path: [any CodingKey]) throws -> Double {
        switch try required(stored, Double.self, at: path) {
        case .double(let value): return value
        case .float(let value): return Double(value)
        case .int(let value):
            guard let exact = Double(exactly: value) else {
                throw CoderErrors.doesNotFit(Double.self, found: "int \(value)", "which a Double cannot hold exactly", at: path)
            }
            return exact
        case let other: throw CoderErrors.typeMismatch(Double.self, found: other, at: path)
        }
    }

    /// A `.double` is rounded to the nearest `Float` (a `Float` encodes exactly, and JSON wrote
    /// `Float`s as short decimals); one beyond `Float`'s range is an error.
    static func float(_ stored: Value?, at path: [any CodingKey]) throws -> Float {
        switch try required(stored, Float.self, at: path) {
        case .float(let value): return value
        case .double(let value):
            let rounded = Float(value)
            guard rounded.isFinite || value.isInfinite else {
                throw CoderErrors.doesNotFit(Float.self, found: "double \(value)", "beyond Float's range", at: path)
            }
            return rounded
        case .int(let value):
            guard let exact = Float(exactly: value) else {
                throw CoderErrors.doesNotFit(Float.self, found: "int \(value)", "which a Float cannot hold exactly", at: path)
            }
            return exact
        case let other: throw CoderErrors.typeMismatch(Float.self, found: other, at: path)
        }
    }

    static func date(_ stored: Value?, at path: [any CodingKey]) throws -> Date {
        switch try required(stored, Date.self, at: path) {
        case .date(let value): return value
        case .int(let milliseconds): return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        case .double(let milliseconds): return Date(timeIntervalSince1970: milliseconds / 1000)
        case .string(let text):
            guard let date = JSONValue.parseDate(text) else {
                throw CoderErrors.doesNotFit(Date.self, found: "string \"\(text.prefix(40))\"", "not an ISO 8601 date", at: path)
            }
            return date
        case let other: throw CoderErrors.typeMismatch(Date.self, found: other, at: path)
        }
    }

    static func data(_ stored: Value?, at path: [any CodingKey]) throws -> Data {
        switch try required(stored, Data.self, at: path) {
        case .data(let value): return value
        case .string(let base64):
            guard let data = Data(base64Encoded: base64) else { throw CoderErrors.doesNotFit(Data.self, found: "a string", "not base64", at: path) }
            return data
        case let other: throw CoderErrors.typeMismatch(Data.self, found: other, at: path)
        }
    }

    static func url(_ stored: Value?, at path: [any CodingKey]) throws -> URL {
        switch try required(stored, URL.self, at: path) {
        case .url(let value): return value
        case .string(let text):
            guard let url = URL(string: text) else { throw CoderErrors.doesNotFit(URL.self, found: "string \"\(text.prefix(40))\"", "not a URL", at: path) }
            return url
        case let other: throw CoderErrors.typeMismatch(URL.self, found: other, at: path)
        }
    }

    static func uuid(_ stored: Value?, at path: [any CodingKey]) throws -> UUID {
        switch try required(stored, UUID.self, at: path) {
        case .uuid(let value): return value
        case .string(let text):
            guard let uuid = UUID(uuidString: text) else {
                throw CoderErrors.doesNotFit(UUID.self, found: "string \"\(text.prefix(40))\"", "not a UUID", at: path)
            }
            return uuid
        case let other: throw CoderErrors.typeMismatch(UUID.self, found: other, at: path)
        }
    }

    /// A `Decimal` written as a JSON number by earlier versions; `nil` for anything else, which
    /// `Decimal`'s own `init(from:)` then reads.
    static func decimal(_ stored: Value?) -> Decimal? {
        switch stored {
        case .int(let value): Decimal(value)
        case .double(let value): Decimal(value)
        default: nil
        }
    }

    private static func required(_ stored: Value?, _ type: Any.Type, at path: [any CodingKey]) throws -> Value {
        guard let stored else { throw CoderErrors.valueNotFound(type, "nothing", at: path) }
        return stored
    }
}
