import Foundation

/// An error from a typed key, `@Stored`, `@Setting`, `@Exclusive` or a custom store property,
/// naming what was being done to which key, with the store's error underneath.
///
/// Throwing APIs (`try suite.set(value, for: key)`, `try $name.set(...)`) throw it. Setters that
/// cannot throw (`name = "Ada"`, `suite[key] = 3`) hand it to `UnhandledErrors` and keep it
/// as the key's `lastError`; they never swallow it.
///
/// <!-- assume: @Stored("username", in: suite) var username = "Guest" -->
/// ```swift
/// do { try $username.set(String(repeating: "x", count: 10_000_000)) }
/// catch let error as WrapperError { print(error) }   // could not write "username" in suite "app": value … over the limit …
/// ```
public struct WrapperError: Error, Sendable, CustomStringConvertible {
    /// What was being done.
    public enum Operation: String, Sendable {
        /// Reading the key's value (or a render that failed).
        case read
        /// Storing a value (a set, an update, a registered default).
        case write
        /// Removing the key's value (`remove`, `reset()`).
        case remove
        /// Observing the key: starting to, or the journal failing later.
        case observe
    }

    /// What was being done.
    public let operation: Operation
    /// The suite's name (`(overrides)` for the override layer).
    public let suite: String
    /// The key's name.
    public let key: String
    /// The underlying error, usually a `StoreError`.
    public let underlying: any Error & Sendable

    /// An error of `operation` on `key` of `suite`, caused by `underlying`.
    public init(_ operation: Operation, suite: String, key: String, underlying: any Error & Sendable) {
        self.operation = operation
        self.suite = suite
        self.key = key
        self.underlying = underlying
    }

    /// The store's error, when the underlying error is one.
    public var storeError: StoreError? { underlying as? StoreError }

    public var description: String {
        let verb: String
        switch operation {
        case .read: verb = "read"
        case .write: verb = "write"
        case .remove: verb = "remove"
        case .observe: verb = "observe"
        }
        return "could not \(verb) \"\(key)\" in suite \"\(suite)\": \(underlying)"
    }
}
