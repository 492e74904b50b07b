/// No matching change arrived in time (`ChangeExpectation`).
///
/// ```swift
/// do { _ = try expectation.wait(timeout: .seconds(1)) }
/// catch let timeout as ChangeTimeout { print(timeout) }   // "no change of app/theme arrived within 1.0 seconds"
/// ```
public struct ChangeTimeout: Error, Sendable, CustomStringConvertible {
    /// The suite observed.
    ///
    /// ```swift
    /// #expect(timeout.suite == "app")
    /// ```
    public let suite: String
    /// The key observed.
    ///
    /// ```swift
    /// #expect(timeout.key == "theme")
    /// ```
    public let key: String
    /// How long it waited.
    ///
    /// ```swift
    /// #expect(timeout.timeout == .seconds(1))
    /// ```
    public let timeout: Duration

    /// What was awaited, and how long.
    ///
    /// ```swift
    /// print(timeout)   // "no change of app/theme arrived within 1.0 seconds"
    /// ```
    public var description: String { "no change of \(suite)/\(key) arrived within \(timeout)" }
}
