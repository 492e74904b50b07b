import Foundation

/// A type whose values can key a stored dictionary. `Value.dictionary` is keyed by strings, so a
/// dictionary keyed by one of these is stored with each key as its string form: `[1: "one"]` is
/// stored as `["1": "one"]`, and reads back as `[Int: String]`, or as `[String: String]` (another
/// process, `sync-tool get` and a `Codable` type's `[Int: String]` see the same dictionary).
///
/// ```swift
/// try suite.set([1: "one", 2: "two"], forKey: "names")          // stored as ["1": "one", "2": "two"]
/// let names = try suite.get("names", as: [Int: String].self)
///
/// enum Pane: String, StorableValue, StorableDictionaryKey { case editor, sidebar }
/// try suite.set([Pane.editor: 0.7, .sidebar: 0.3], forKey: "widths")   // ["editor": 0.7, "sidebar": 0.3]
/// ```
///
/// `String`, `Character`, `Bool`, every integer type, `Double` and `Float` conform, stored as their
/// `description`; `UUID` as its `uuidString`. An enum with `String` or integer raw values is stored as
/// its raw value's string, a `LosslessStringConvertible` type of yours as its `description`, once it
/// declares the conformance. Reading a stored key that is not one of the key type's strings, or two
/// stored keys that read as one key (`"1"` and `"01"` as an `Int`), is a type mismatch that names them.
/// Inside a `Codable` type, a dictionary is stored as `Codable` encodes it: keyed by `String` or `Int`,
/// as this dictionary; keyed by another type, as an array of its keys and values in turn.
public protocol StorableDictionaryKey: Hashable, Sendable {
    /// The string the key is stored as.
    var storedKey: String { get }
    /// The key a stored string names, or nil when it names none. (A static function rather than an
    /// initializer, so that `Int.init` and the like stay unambiguous where they are passed as functions.)
    static func key(storedAs string: String) -> Self?
}

extension StorableDictionaryKey where Self: LosslessStringConvertible {
    public var storedKey: String { description }
    public static func key(storedAs string: String) -> Self? { Self(string) }
}

extension StorableDictionaryKey where Self: RawRepresentable, RawValue: StorableDictionaryKey {
    public var storedKey: String { rawValue.storedKey }
    public static func key(storedAs string: String) -> Self? { RawValue.key(storedAs: string).flatMap(Self.init(rawValue:)) }
}

/// An enum with raw values that is also `LosslessStringConvertible` is stored as its raw value.
extension StorableDictionaryKey where Self: RawRepresentable & LosslessStringConvertible, RawValue: StorableDictionaryKey {
    public var storedKey: String { rawValue.storedKey }
    public static func key(storedAs string: String) -> Self? { RawValue.key(storedAs: string).flatMap(Self.init(rawValue:)) }
}

/// A `String` keys a stored dictionary as itself.
extension String: StorableDictionaryKey {}
/// A `Character` keys a stored dictionary as the one-character string it is.
extension Character: StorableDictionaryKey {}
/// A `Bool` keys a stored dictionary as `"true"` or `"false"`.
extension Bool: StorableDictionaryKey {}
/// An `Int` keys a stored dictionary as its decimal `description`.
extension Int: StorableDictionaryKey {}
/// An `Int8` keys a stored dictionary as its decimal `description`.
extension Int8: StorableDictionaryKey {}
/// An `Int16` keys a stored dictionary as its decimal `description`.
extension Int16: StorableDictionaryKey {}
/// An `Int32` keys a stored dictionary as its decimal `description`.
extension Int32: StorableDictionaryKey {}
/// An `Int64` keys a stored dictionary as its decimal `description`.
extension Int64: StorableDictionaryKey {}
/// A `UInt` keys a stored dictionary as its decimal `description`.
extension UInt: StorableDictionaryKey {}
/// A `UInt8` keys a stored dictionary as its decimal `description`.
extension UInt8: StorableDictionaryKey {}
/// A `UInt16` keys a stored dictionary as its decimal `description`.
extension UInt16: StorableDictionaryKey {}
/// A `UInt32` keys a stored dictionary as its decimal `description`.
extension UInt32: StorableDictionaryKey {}
/// A `UInt64` keys a stored dictionary as its decimal `description`.
extension UInt64: StorableDictionaryKey {}
/// A `Double` keys a stored dictionary as its `description` (`"0.1"`, `"-0.0"`, `"inf"`), which reads back exactly.
extension Double: StorableDictionaryKey {}
/// A `Float` keys a stored dictionary as its `description` (`"0.1"`, `"-0.0"`, `"inf"`), which reads back exactly.
extension Float: StorableDictionaryKey {}

/// A `UUID` key is stored as its `uuidString` (upper case); a stored key in lower case reads too.
extension UUID: StorableDictionaryKey {
    public var storedKey: String { uuidString }
    public static func key(storedAs string: String) -> Self? { UUID(uuidString: string) }
}
