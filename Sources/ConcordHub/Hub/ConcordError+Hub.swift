import Concord

/// The hub's errors, each with a message a person can act on; no message ever holds a password.
extension ConcordError {
    /// The database has no hub schema.
    package static func notInitialized(endpoint: String) -> ConcordError {
        ConcordError(
            .hubNotInitialized,
            "\(endpoint) holds no Concord hub (schema concord_hub is missing): run 'sync-tool hub init URL' as the database owner first", peer: endpoint)
    }

    /// The hub's schema is newer than this client's.
    package static func newerSchema(found: Int, supported: Int) -> ConcordError {
        ConcordError(.newerHubSchema, "the hub's schema is version \(found), newer than this client's \(supported): upgrade Concord on this device")
    }

    /// The role logged in cannot see the account.
    package static func accountNotVisible(account: String, role: String) -> ConcordError {
        ConcordError(
            .accountNotVisible,
            "the hub has no account '\(account)' visible to role '\(role)': each account's rows are readable only by its own role (log in as '\(account)', or create it with 'sync-tool hub add-account')"
        )
    }

    /// An account name that is not 1–48 letters, digits or `_`, starting with a letter.
    package static func invalidAccountName(_ name: String) -> ConcordError {
        ConcordError(
            .invalidArgument,
            "'\(name.prefix(80))' is not a valid account name: use 1-48 lowercase letters, digits or '_', starting with a letter (it becomes a PostgreSQL role)"
        )
    }

    /// `add-account` for an account that exists already.
    package static func accountExists(_ name: String) -> ConcordError {
        ConcordError(.accountExists, "account '\(name)' exists already on this hub (nothing changed)")
    }

    /// A row the client cannot read back.
    package static func damagedRow(_ what: String) -> ConcordError {
        ConcordError(.damaged, "the hub holds a row this client cannot read: \(what)")
    }

    /// `add-account` for a name a role of the server has already.
    package static func roleExists(_ name: String) -> ConcordError {
        ConcordError(
            .accountExists,
            "a role named '\(name)' exists already on this server, so it cannot become an account: an account is only ever a role the hub creates for it (LOGIN and membership of \(HubSchema.deviceRole), nothing else); choose another name or --opaque (nothing changed)"
        )
    }

    /// The hub has no account of this name.
    package static func unknownAccount(_ name: String) -> ConcordError {
        ConcordError(.unknownAccount, "the hub has no account '\(name.prefix(80))' (nothing changed)")
    }

    /// A change that would take the account past a limit: the whole transaction was refused.
    package static func overQuota(account: String, usage: HubUsage) -> ConcordError {
        ConcordError(
            .overQuota,
            "account \(account) is over its quota, so the hub refused the whole change (nothing was written): it would hold \(usage); delete keys, or have the hub's operator raise the limit (sync-tool hub set-quota)"
        )
    }

    /// A partition count outside 2–1024.
    package static func invalidPartitions(_ n: Int) -> ConcordError {
        ConcordError(.invalidArgument, "\(n) partitions: a hub's tables are split into 2 to 1024 partitions")
    }

    /// An account label that is empty, longer than 200 bytes, or holds control characters.
    package static func invalidLabel(_ label: String) -> ConcordError {
        ConcordError(.invalidArgument, "'\(label.prefix(80))' is not a valid account label: use 1-200 bytes of printable text")
    }

    /// Live sync through a pooler in transaction mode.
    package static func transactionPooling(endpoint: String) -> ConcordError {
        ConcordError(
            .transactionPooling,
            "live sync cannot run through \(endpoint): it is a connection pooler in transaction mode, which hands this session's server connection to other clients between transactions, so LISTEN misses the account's announcements; point live devices at PgBouncer in session mode or straight at PostgreSQL (one-shot syncs work through transaction mode)",
            peer: endpoint)
    }

    /// Runs `body`, turning a `PostgresError` into the error it means.
    @discardableResult
    package static func fromPostgres<R>(_ body: () throws -> R) throws -> R {
        do { return try body() } catch let error as PostgresError { throw ConcordError(error) }
    }

    /// A PostgreSQL error as the hub error it means: a refusal by the quota trigger (SQLSTATE CQ001) is
    /// `.overQuota`; one of reaching the server `.unreachable`; a connection string that does not
    /// parse `.invalidArgument`; anything else `.hubRefused`.
    package init(_ error: PostgresError) {
        if error.sqlState == "CQ001", let detail = error.detail, let usage = HubUsage(quotaDetail: detail) {
            let account = detail.split(separator: " ").first { $0.hasPrefix("account=") }.map { String($0.dropFirst("account=".count)) } ?? "?"
            self = .overQuota(account: account, usage: usage)
            return
        }
        let code: Code = error.kind == .malformedConnectionString ? .invalidArgument : error.isConnectionFailure ? .unreachable : .hubRefused
        self.init(code, error.description + Self.hint(error), operation: error.operation)
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
}
