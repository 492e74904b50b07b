import Foundation

/// A value a suite can hold. Every value is stored with a type tag in a deterministic
/// binary encoding, so it comes back as exactly the type it was stored as.
///
/// ```swift
/// try suite.set(Value.array([.int(1), .string("two")]), forKey: "mixed")
/// ```
public enum Value: Hashable, Sendable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case data(Data)
    case date(Date)
    case url(URL)
    case array([Value])
    case dictionary([String: Value])

    /// The name of the stored type, as errors and the CLI show it: `string`, `int`, `double`, …
    public var typeName: String { kind.rawValue }

    /// The kind of this value.
    public var kind: ValueKind {
        switch self {
        case .string: .string
        case .int: .int
        case .double: .double
        case .bool: .bool
        case .data: .data
        case .date: .date
        case .url: .url
        case .array: .array
        case .dictionary: .dictionary
        }
    }
}

/// The kinds of value a suite can hold; the raw values are the names the CLI and errors use.
public enum ValueKind: String, Sendable, CaseIterable {
    case string, int, double, bool, data, date, url, array, dictionary
}
