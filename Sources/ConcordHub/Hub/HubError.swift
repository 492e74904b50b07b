/// What can go wrong talking to a hub, each with a message a person can act on. No message ever
/// holds a password.
///
/// ```swift
/// do { try HubSynchronizer().sync(store, hub) }
/// catch let error as HubError where error.isUnreachable { print("offline:", error) }
/// ```
public enum HubError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The server failed or refused a statement, or cannot be reached (see `PostgresError`).
    case postgres(PostgresError)
    /// The database has no hub schema: run `sync-tool hub init URL` as its owner first.
    case notInitialized(endpoint: String)
    /// The hub's schema is newer than this client understands.
    case newerSchema(found: Int, supported: Int)
    /// The role logged in cannot see the account asked for (row-level security hides every other account).
    case accountNotVisible(account: String, role: String)
    /// An account name that is not 1–48 letters, digits or `_`, starting with a letter.
    case invalidAccountName(String)
    /// `add-account` for an account that exists already.
    case accountExists(String)
    /// The hub holds a row this client cannot read back (a damaged or foreign row).
    case damagedRow(String)

    public var description: String {
        switch self {
        case .postgres(let error): return error.description
        case .notInitialized(let endpoint):
            return "\(endpoint) holds no Concord hub (schema concord_hub is missing): run 'sync-tool hub init URL' as the database owner first"
        case .newerSchema(let found, let supported):
            return "the hub's schema is version \(found), newer than this client's \(supported): upgrade Concord on this device"
        case .accountNotVisible(let account, let role):
            return
                "the hub has no account '\(account)' visible to role '\(role)': each account's rows are readable only by its own role (log in as '\(account)', or create it with 'sync-tool hub add-account')"
        case .invalidAccountName(let name):
            return
                "'\(name.prefix(80))' is not a valid account name: use 1-48 lowercase letters, digits or '_', starting with a letter (it becomes a PostgreSQL role)"
        case .accountExists(let name):
            return "account '\(name)' exists already on this hub (nothing changed)"
        case .damagedRow(let what):
            return "the hub holds a row this client cannot read: \(what)"
        }
    }

    /// True when the hub could not be reached, refused the login, or went away mid-way.
    public var isUnreachable: Bool {
        if case .postgres(let error) = self { return error.isConnectionFailure }
        return false
    }
}

extension HubError {
    /// Runs `body`, wrapping a `PostgresError` as `.postgres`.
    @discardableResult
    static func wrapping<R>(_ body: () throws -> R) throws -> R {
        do { return try body() } catch let error as PostgresError { throw HubError.postgres(error) }
    }
}
