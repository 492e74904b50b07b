import Foundation

/// A value a suite can hold. Every value is stored with a type tag in a deterministic
/// binary encoding, so it comes back as exactly the type it was stored as.
///
/// `Float` and `UUID` are stored natively (`.float`, `.uuid`), not as a `Double` or a string.
/// Numbers read as another numeric type only where that is exact and widening: an `.int` reads as a
/// `Double` when the `Double` holds it exactly (up to 2^53 in magnitude), a `.float` reads as a
/// `Double`; nothing reads as an `Int` or a `Float` but an `.int` or a `.float` (a `.double` is never
/// truncated or rounded on reading). Every other mismatch is ``ConcordError`` `.typeMismatch`.
///
/// ```swift
/// try suite.set(Value.array([.int(1), .string("two")]), forKey: "mixed")
/// ```
public enum Value: Hashable, Sendable {
    /// Text.
    case string(String)
    /// A 64-bit signed integer.
    case int(Int)
    /// A 64-bit floating-point number: never NaN; `-0.0` and the infinities round-trip.
    case double(Double)
    /// A 32-bit float, stored as its own bits (never NaN).
    case float(Float)
    /// A Boolean.
    case bool(Bool)
    /// Bytes, as they are.
    case data(Data)
    /// A point in time, stored exactly as `Date` holds it, so it reads back equal.
    case date(Date)
    /// A URL, stored as its absolute string.
    case url(URL)
    /// A UUID, stored as its 16 bytes.
    case uuid(UUID)
    /// An ordered list of values (nested up to 64 levels).
    case array([Value])
    /// Values by string key; encoded in key order, so equal dictionaries encode to equal bytes.
    case dictionary([String: Value])

    /// The name of the stored type, as errors and the CLI show it: `string`, `int`, `double`, …
    public var typeName: String { kind.rawValue }

    /// The kind of this value.
    package var kind: ValueKind {
        switch self {
        case .string: .string
        case .int: .int
        case .double: .double
        case .float: .float
        case .bool: .bool
        case .data: .data
        case .date: .date
        case .url: .url
        case .uuid: .uuid
        case .array: .array
        case .dictionary: .dictionary
        }
    }
}

/// The kinds of value a suite can hold; the raw values are the names the CLI and errors use.
package enum ValueKind: String, Sendable, CaseIterable {
    /// The kind of `Value.string`.
    case string
    /// The kind of `Value.int`.
    case int
    /// The kind of `Value.double`.
    case double
    /// The kind of `Value.float`.
    case float
    /// The kind of `Value.bool`.
    case bool
    /// The kind of `Value.data`.
    case data
    /// The kind of `Value.date`.
    case date
    /// The kind of `Value.url`.
    case url
    /// The kind of `Value.uuid`.
    case uuid
    /// The kind of `Value.array`.
    case array
    /// The kind of `Value.dictionary`.
    case dictionary
}
