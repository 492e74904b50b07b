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
    /// `add-account` for a name a role of the server has already: an account is only ever a role the
    /// hub created for it.
    case roleExists(String)
    /// The hub has no account of this name (an administrator asked for it).
    case unknownAccount(String)
    /// The change would take the account past a limit; the whole transaction (a push) was refused.
    /// `usage` is what the change would have reached.
    case overQuota(account: String, usage: HubUsage)
    /// A partition count outside 2–1024.
    case invalidPartitions(Int)
    /// An account label that is empty, longer than 200 bytes, or holds control characters.
    case invalidLabel(String)
    /// Live sync reached the hub through a pooler in transaction mode, which hands the session's
    /// server connection to other clients between transactions: LISTEN cannot work there.
    case transactionPooling(endpoint: String)

    public var description: String {
        switch self {
        case .postgres(let error): return error.description + Self.hint(error)
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
        case .roleExists(let name):
            return
                "a role named '\(name)' exists already on this server, so it cannot become an account: an account is only ever a role the hub creates for it (LOGIN and membership of \(HubSchema.deviceRole), nothing else); choose another name or --opaque (nothing changed)"
        case .unknownAccount(let name):
            return "the hub has no account '\(name.prefix(80))' (nothing changed)"
        case .overQuota(let account, let usage):
            return
                "account \(account) is over its quota, so the hub refused the whole change (nothing was written): it would hold \(usage); delete keys, or have the hub's operator raise the limit (sync-tool hub set-quota)"
        case .invalidPartitions(let n):
            return "\(n) partitions: a hub's tables are split into 2 to 1024 partitions"
        case .invalidLabel(let label):
            return "'\(label.prefix(80))' is not a valid account label: use 1-200 bytes of printable text"
        case .transactionPooling(let endpoint):
            return
                "live sync cannot run through \(endpoint): it is a connection pooler in transaction mode, which hands this session's server connection to other clients between transactions, so LISTEN misses the account's announcements; point live devices at PgBouncer in session mode or straight at PostgreSQL (one-shot syncs work through transaction mode)"
        }
    }

    /// What to check when a TLS connection failed (libpq's own words name the failure, not the fix).
    private static func hint(_ error: PostgresError) -> String {
        guard error.kind == .connection else { return "" }
        if error.message.contains("certificate verify failed") {
            return
                " (the server's certificate did not verify against the certificate authority in sslrootcert, ~/.postgresql/root.crt by default: give the CA that signed the server's certificate)"
        }
        if error.message.contains("does not support SSL") {
            return " (this server does not speak TLS, and the connection string requires it: enable ssl on the server, or connect to one that has it)"
        }
        return ""
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
        do { return try body() } catch let error as PostgresError { throw HubError(error) }
    }

    /// A PostgreSQL error as the hub error it means: a refusal by the quota trigger (SQLSTATE CQ001) is
    /// `.overQuota`; anything else is `.postgres`.
    package init(_ error: PostgresError) {
        if error.sqlState == "CQ001", let detail = error.detail, let usage = HubUsage(quotaDetail: detail) {
            let account = detail.split(separator: " ").first { $0.hasPrefix("account=") }.map { String($0.dropFirst("account=".count)) } ?? "?"
            self = .overQuota(account: account, usage: usage)
        } else {
            self = .postgres(error)
        }
    }
}
