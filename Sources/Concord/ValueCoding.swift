import Foundation

/// How a Swift type maps to the `Value` a suite stores, and back.
///
/// Typed keys, `@Stored`, settings and exclusive choices pick one for you from the value's type:
/// store-native types (`String`, `Int`, `Double`, `Bool`, `Data`, `Date`, `URL`, arrays and
/// dictionaries of them) are stored as themselves, `RawRepresentable` types as their raw value,
/// `Codable` types as the structure their JSON maps to, and optionals as "not set" when `nil`.
/// Pass your own to store a type another way.
///
/// ```swift
/// let celsius = ValueCoding<Measurement<UnitTemperature>>(
///     identifier: "celsius", typeName: "temperature",
///     encode: { .double($0.converted(to: .celsius).value) },
///     decode: { stored in
///         guard case .double(let v) = stored else { throw ValueMismatch(stored: stored, requested: "temperature") }
///         return Measurement(value: v, unit: .celsius)
///     })
/// let outside = Key("outside", default: Measurement(value: 20, unit: UnitTemperature.celsius), coding: celsius)
/// ```
public struct ValueCoding<Wrapped: Sendable>: Sendable {
    /// Names the mapping; shared per-key references are kept per key *and* coding.
    public let identifier: String
    /// The type's name in error messages.
    public let typeName: String
    private let encodeBody: @Sendable (Wrapped) throws -> Value?
    private let decodeBody: @Sendable (Value) throws -> Wrapped

    /// A coding from two closures. `encode` returns `nil` for "nothing stored" (the key is removed);
    /// `decode` throws (preferably `ValueMismatch`) when the stored value is not a `Wrapped`.
    public init(identifier: String, typeName: String,
                encode: @escaping @Sendable (Wrapped) throws -> Value?,
                decode: @escaping @Sendable (Value) throws -> Wrapped) {
        self.identifier = identifier
        self.typeName = typeName
        self.encodeBody = encode
        self.decodeBody = decode
    }

    /// The value to store, or `nil` when `value` means "not set".
    public func encode(_ value: Wrapped) throws -> Value? { try encodeBody(value) }

    /// The typed value of a stored value; throws when it has another type.
    public func decode(_ stored: Value) throws -> Wrapped { try decodeBody(stored) }
}

/// A stored value that does not have the type a key, wrapper or setting asked for.
/// Wrappers turn it into `StoreError.typeMismatch`, naming the suite and key.
public struct ValueMismatch: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is stored, e.g. `string` or `String "purple"`.
    public let stored: String
    /// What was asked for, e.g. `Int` or `Theme`.
    public let requested: String

    public init(stored: String, requested: String) {
        self.stored = stored
        self.requested = requested
    }

    /// A mismatch naming the stored value's type.
    public init(stored: Value, requested: String) {
        self.init(stored: stored.typeName, requested: requested)
    }

    public var description: String { "the stored \(stored) is not a \(requested)" }
}

extension ValueCoding where Wrapped: StorableValue {
    /// Stores the value as itself (`String`, `Int`, `Date`, arrays, dictionaries, …).
    public static var storable: ValueCoding {
        ValueCoding(identifier: "storable", typeName: Wrapped.typeDescription,
                    encode: { $0.storedValue },
                    decode: { stored in
                        guard let value = Wrapped(storedValue: stored) else {
                            throw ValueMismatch(stored: stored, requested: Wrapped.typeDescription)
                        }
                        return value
                    })
    }
}

extension ValueCoding where Wrapped: RawRepresentable, Wrapped.RawValue: StorableValue {
    /// Stores the value as its raw value (an enum with `String` or `Int` raw values, for example).
    /// A raw value with no matching case is a mismatch, not a crash.
    public static var rawRepresentable: ValueCoding {
        ValueCoding(identifier: "raw", typeName: "\(Wrapped.self)",
                    encode: { $0.rawValue.storedValue },
                    decode: { stored in
                        guard let raw = Wrapped.RawValue(storedValue: stored) else {
                            throw ValueMismatch(stored: stored, requested: "\(Wrapped.self)")
                        }
                        guard let value = Wrapped(rawValue: raw) else {
                            throw ValueMismatch(stored: "\(Wrapped.RawValue.typeDescription) \(raw)", requested: "\(Wrapped.self)")
                        }
                        return value
                    })
    }
}

extension ValueCoding where Wrapped: Codable {
    /// Stores the value as the typed structure its JSON maps to (objects become dictionaries),
    /// so other tools can read it; dates are milliseconds since 1970.
    public static var codable: ValueCoding {
        ValueCoding(identifier: "codable", typeName: "\(Wrapped.self)",
                    encode: { try CodableBridge.value(from: $0) },
                    decode: { stored in
                        do { return try CodableBridge.decode(Wrapped.self, from: stored) } catch {
                            throw ValueMismatch(stored: stored, requested: "\(Wrapped.self)")
                        }
                    })
    }
}

extension ValueCoding where Wrapped: OptionalValue, Wrapped.Wrapped: Sendable {
    /// An optional stored through `wrapped`: `nil` means nothing is stored (the key is removed),
    /// so "not set" and "set to an empty value" stay different things.
    public static func optional(_ wrapped: ValueCoding<Wrapped.Wrapped>) -> ValueCoding {
        ValueCoding(identifier: "optional(\(wrapped.identifier))", typeName: "\(wrapped.typeName)?",
                    encode: { value in try value.optional.flatMap { try wrapped.encode($0) } },
                    decode: { stored in Wrapped(optional: try wrapped.decode(stored)) })
    }
}
