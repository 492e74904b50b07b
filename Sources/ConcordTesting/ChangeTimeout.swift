/// No matching change arrived in time (`ChangeExpectation`).
///
/// ```swift
/// do { _ = try expectation.wait(timeout: .seconds(1)) }
/// catch let timeout as ChangeTimeout { print(timeout) }   // "no change of app/theme arrived within 1 seconds"
/// ```
public struct ChangeTimeout: Error, Sendable, CustomStringConvertible {
    /// The suite observed.
    public let suite: String
    /// The key observed.
    public let key: String
    /// How long it waited.
    public let timeout: Duration

    public var description: String { "no change of \(suite)/\(key) arrived within \(timeout)" }
}
