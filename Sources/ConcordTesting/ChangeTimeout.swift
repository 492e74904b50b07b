/// No matching change arrived in time (`ChangeExpectation`).
///
/// <!-- assume: let expectation = try suite.expectChange(of: "theme") -->
/// ```swift
/// do { _ = try expectation.wait(timeout: .seconds(1)) }
/// catch let timeout as ChangeTimeout { print(timeout) }   // "no change of app/theme arrived within 1.0 seconds"
/// ```
public struct ChangeTimeout: Error, Sendable, CustomStringConvertible {
    /// The suite observed.
    ///
    /// <!-- assume: let timeout: ChangeTimeout = given() -->
    /// ```swift
    /// #expect(timeout.suite == "app")
    /// ```
    public let suite: String
    /// The key observed.
    ///
    /// <!-- assume: let timeout: ChangeTimeout = given() -->
    /// ```swift
    /// #expect(timeout.key == "theme")
    /// ```
    public let key: String
    /// How long it waited.
    ///
    /// <!-- assume: let timeout: ChangeTimeout = given() -->
    /// ```swift
    /// #expect(timeout.timeout == .seconds(1))
    /// ```
    public let timeout: Duration

    /// What was awaited, and how long.
    ///
    /// <!-- assume: let timeout: ChangeTimeout = given() -->
    /// ```swift
    /// print(timeout)   // "no change of app/theme arrived within 1.0 seconds"
    /// ```
    public var description: String { "no change of \(suite)/\(key) arrived within \(timeout)" }
}
