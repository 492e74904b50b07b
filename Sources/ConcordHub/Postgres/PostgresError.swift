import Foundation

/// An error from PostgreSQL or libpq: what failed, the server's SQLSTATE when it sent one, and
/// its message. Never holds a password: connection strings in it are redacted (`ConnectionString`).
///
/// ```swift
/// func isDivisionByZero(_ error: any Error) -> Bool {
///     (error as? PostgresError)?.sqlState == "22012"
/// }
/// ```
package struct PostgresError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The kinds of failure, each calling for a different response.
    package enum Kind: Sendable, Equatable {
        /// The server cannot be reached, or it refused the login.
        case connection
        /// The server rejected a statement (see `sqlState`).
        case statement
        /// The connection broke while a statement ran (the server stopped, the network was cut).
        case connectionLost
        /// A result did not have the shape this client expects.
        case protocolViolation
        /// The connection string does not parse (nothing was sent anywhere).
        case malformedConnectionString
    }

    /// Which kind of failure this is.
    package let kind: Kind
    /// The five-character SQLSTATE the server sent (`"42501"` for insufficient privilege), if any.
    package let sqlState: String?
    /// What went wrong, as the server or libpq said it (passwords removed).
    package let message: String
    /// What this client was doing: `"connect to alice@localhost:5432/hub"`, `"push"`.
    package let operation: String
    /// The server's DETAIL field, when it sent one (the hub's quota trigger puts its figures there).
    package let detail: String?

    package init(_ kind: Kind, sqlState: String? = nil, message: String, operation: String, detail: String? = nil) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message.oneLine()
        self.operation = operation
        self.detail = detail
    }

    package var description: String {
        "\(operation) failed: \(message)" + (sqlState.map { " (SQLSTATE \($0))" } ?? "")
    }

    /// True when the server was not reached, refused the login, or went away (retrying later may help).
    package var isConnectionFailure: Bool {
        switch kind {
        case .connection, .connectionLost: true
        case .statement: sqlState.map { $0.hasPrefix("08") || $0 == "57P01" || $0 == "57P02" || $0 == "57P03" } ?? false
        case .protocolViolation, .malformedConnectionString: false
        }
    }

    /// SQLSTATE 40001 / 40P01: the transaction lost a serialization race or a deadlock and may be retried.
    package var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }
}

extension String {
    /// The text on one line: libpq's lines (a message, then hints such as "Is the server running on
    /// that host…?") joined with "; ", each without its surrounding whitespace.
    func oneLine() -> String {
        split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: "; ")
    }
}
