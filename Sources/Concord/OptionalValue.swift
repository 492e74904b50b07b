/// `Optional`, seen through a protocol, so typed keys and wrappers can tell an optional value
/// type apart: for `T?`, `nil` means "nothing stored" (the key is removed), which is different
/// from storing an empty value.
///
/// Only `Optional` conforms; you never need to use this protocol yourself.
///
/// ```swift
/// let nickname = Key<String?>("nickname")   // default nil
/// suite[nickname] = ""                      // stored: an empty string
/// suite[nickname] = nil                     // removed: not set
/// ```
public protocol OptionalValue: ExpressibleByNilLiteral {
    associatedtype Wrapped
    /// Makes the optional from a plain `Wrapped?`.
    init(optional: Wrapped?)
    /// The value as a plain `Wrapped?`.
    var optional: Wrapped? { get }
}

extension Optional: OptionalValue {
    public init(optional: Wrapped?) { self = optional }
    public var optional: Wrapped? { self }
}
