import ConcordStore
import ConcordSync

/// A device's connection to one account on a PostgreSQL hub. The hub is a peer like any other
/// replica: it has a replica id of its own (one per hub and account), so peer cursors, conflict
/// rules and re-journaling work as they do between two directories.
///
/// The account is the role the connection string logs in as (row-level security shows a role its
/// own rows only); asking for another account is an error, never another account's data.
///
/// ```swift
/// let hub = try Hub("postgresql://alice@db.example.com/settings")   // password from ~/.pgpass or PGPASSWORD
/// let report = try HubSynchronizer().sync(store, hub)
/// print(report.pushed, "pushed,", report.pulled.recordsChanged, "pulled")
/// ```
public final class Hub {
    /// Where the hub is; printing it never shows the password.
    public let connectionString: ConnectionString
    /// The account (a PostgreSQL role) whose rows this connection reads and writes.
    public let account: String
    /// The hub's replica id for this account: devices keep their cursors on it.
    public let replicaID: ReplicaID
    /// The NOTIFY channel pushes to this account announce themselves on: a secret of the account's
    /// row (`concord_` and 32 random hex digits), so no other account can LISTEN or NOTIFY on it.
    let channel: String
    package let db: PostgresConnection

    /// Connects to the hub at `url` (a libpq URI or `key=value` string; empty: the `PG*` environment
    /// variables). `account` defaults to the login role.
    ///
    /// ```swift
    /// let hub = try Hub("postgresql://alice@db.example.com/settings?sslmode=verify-full")
    /// ```
    ///
    /// - Parameters:
    ///   - url: Where the hub is, and how to log in (the password from `~/.pgpass` or `PGPASSWORD` if not in it).
    ///   - account: The account to sync; the default is the login role's own.
    /// - Throws: `HubError.postgres` when the server cannot be reached or refuses the login,
    ///   `.notInitialized` when the database holds no hub, `.newerSchema`, or `.accountNotVisible`.
    public convenience init(_ url: String, account: String? = nil) throws {
        let db = try HubError.wrapping { try PostgresConnection(ConnectionString(url)) }
        try self.init(connection: db, account: account)
    }

    /// A hub session over an open connection (whose current role decides what row-level security shows).
    package init(connection db: PostgresConnection, account: String? = nil) throws {
        let role = try HubError.wrapping { try db.execute("SELECT current_user::text").text(0, 0) }
        let account = account ?? role
        try HubError.wrapping { try HubSchema.check(on: db) }
        let rows = try HubError.wrapping {
            try db.execute("SELECT hub_replica, channel FROM concord_hub.accounts WHERE name = $1", [.text(account)], operation: "find account")
        }
        guard rows.count == 1 else { throw HubError.accountNotVisible(account: account, role: role) }
        guard let id = ReplicaID(bytes: try HubError.wrapping { try rows.bytes(0, 0) }) else {
            throw HubError.damagedRow("account \(account) has a hub replica id that is not 16 bytes")
        }
        let channel = try HubError.wrapping { try rows.text(0, 1) }
        guard channel.hasPrefix("concord_"), channel.utf8.count <= 63,
            channel.utf8.allSatisfy({ $0 == UInt8(ascii: "_") || ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7a) })
        else { throw HubError.damagedRow("account \(account) has a notification channel that is not concord_ and hex digits") }
        (self.connectionString, self.db, self.account, self.channel) = (db.connectionString, db, account, channel)
        replicaID = id
    }

    /// `user@host:port/database` (never the password).
    public var endpoint: String { db.endpoint }

    /// What the hub has merged of `device`'s journal, per scope (`PeerKnowledge` items about `device`).
    func knowledge(of device: ReplicaID) throws -> PeerKnowledge {
        let rows = try HubError.wrapping {
            try db.execute(
                "SELECT scope, pushed FROM concord_hub.devices WHERE account = $1 AND device = $2",
                [.text(account), .bytea(device.bytes)], operation: "read the device's cursor")
        }
        var items: [PeerKnowledge.Item] = []
        for row in 0..<rows.count {
            let scope = try HubError.wrapping { try rows.text(row, 0) }
            let pushed = try HubError.wrapping { try rows.int64(row, 1) }
            items.append(.init(replica: device, scope: scope.isEmpty ? .allSuites : .suite(scope), seq: UInt64(max(0, pushed))))
        }
        return PeerKnowledge(items: items)
    }
}

extension SyncScope {
    /// How the hub's `devices.scope` column names a scope: empty for every suite.
    var hubColumn: String { suiteName ?? "" }
}
