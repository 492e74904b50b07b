import ConcordStore
import ConcordSync
import Foundation

/// The hub's owner's side: create or upgrade the schema, add accounts, read statistics, collect
/// old tombstones. Connects as a role that owns the hub's tables (and may create roles).
///
/// ```swift
/// let admin = try HubAdmin("postgresql://postgres@localhost/settings")
/// try admin.initialize()
/// try admin.addAccount("alice", password: "correct horse battery staple")
/// print(try admin.stats().accounts)
/// ```
public final class HubAdmin {
    package let db: PostgresConnection

    /// Connects to the hub's database at `url` as a role that administers it (creates schemas and roles).
    ///
    /// - Throws: `HubError` when the server cannot be reached or refuses the login.
    public init(_ url: String) throws {
        db = try HubError.wrapping { try PostgresConnection(ConnectionString(url)) }
    }

    /// `user@host:port/database` (never the password).
    public var endpoint: String { db.endpoint }

    /// Creates the hub's schema, or upgrades an older one; does nothing on a current hub.
    /// Returns the version found (0 for none) and the version now.
    @discardableResult
    public func initialize() throws -> (from: Int, to: Int) {
        try HubError.wrapping { try HubSchema.install(on: db) }
    }

    /// Creates account `name`: a login role of that name with `password` (sent as a SCRAM verifier
    /// computed here, never in clear), a member of the device role, and the account's counter row.
    /// Its devices then see and change only its rows.
    public func addAccount(_ name: String, password: String) throws {
        guard Self.isValidAccountName(name) else { throw HubError.invalidAccountName(name) }
        try HubError.wrapping {
            try HubSchema.check(on: db)
            let verifier = try db.encryptPassword(password, user: name)
            try db.transaction {
                let existing = try db.execute("SELECT 1 FROM concord_hub.accounts WHERE name = $1", [.text(name)])
                guard existing.count == 0 else { throw HubError.accountExists(name) }
                // Role names and passwords cannot be bound as parameters in CREATE ROLE: they travel as
                // transaction-local settings and the server quotes them (%I, %L).
                try db.execute(
                    "SELECT set_config('concord.new_account', $1, true), set_config('concord.new_verifier', $2, true)",
                    [.text(name), .text(verifier)], operation: "create role")
                try db.execute(
                    """
                    DO $$ BEGIN
                      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = current_setting('concord.new_account')) THEN
                        EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L', current_setting('concord.new_account'), current_setting('concord.new_verifier'));
                      ELSE
                        EXECUTE format('ALTER ROLE %I LOGIN PASSWORD %L', current_setting('concord.new_account'), current_setting('concord.new_verifier'));
                      END IF;
                      EXECUTE format('GRANT concord_hub_device TO %I', current_setting('concord.new_account'));
                    END $$
                    """, [], operation: "create role")
                try db.execute("INSERT INTO concord_hub.accounts (name) VALUES ($1)", [.text(name)], operation: "add the account")
            }
        }
    }

    /// 1–48 lowercase ASCII letters, digits or `_`, starting with a letter (it is a role name too).
    public static func isValidAccountName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...48).contains(bytes.count), let first = bytes.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) else { return false }
        return bytes.allSatisfy {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "_")
        }
    }

    /// Counts for the whole hub and per account.
    public func stats() throws -> HubStats {
        try HubError.wrapping {
            try HubSchema.check(on: db)
            return try db.transaction(.snapshot) {
                let totals = try db.execute(
                    """
                    SELECT (SELECT count(*) FROM concord_hub.accounts),
                           (SELECT count(*) FROM concord_hub.records),
                           (SELECT count(*) FROM concord_hub.records WHERE value IS NULL),
                           (SELECT coalesce(sum(last_seq), 0)::bigint FROM concord_hub.accounts),
                           (SELECT count(DISTINCT (account, device)) FROM concord_hub.devices),
                           (pg_total_relation_size('concord_hub.records') + pg_total_relation_size('concord_hub.devices')
                              + pg_total_relation_size('concord_hub.accounts'))::bigint,
                           pg_database_size(current_database())::bigint
                    """)
                var stats = HubStats(
                    accounts: Int(try totals.int64(0, 0)), rows: Int(try totals.int64(0, 1)),
                    tombstones: Int(try totals.int64(0, 2)), changes: UInt64(try totals.int64(0, 3)),
                    devices: Int(try totals.int64(0, 4)), hubBytes: Int(try totals.int64(0, 5)),
                    databaseBytes: Int(try totals.int64(0, 6)), perAccount: [])
                let perAccount = try db.execute(
                    """
                    SELECT a.name, a.last_seq, a.horizon_seq, a.horizon_ms,
                           (SELECT count(*) FROM concord_hub.records r WHERE r.account = a.name),
                           (SELECT count(*) FROM concord_hub.records r WHERE r.account = a.name AND r.value IS NULL),
                           (SELECT count(DISTINCT device) FROM concord_hub.devices d WHERE d.account = a.name)
                    FROM concord_hub.accounts a ORDER BY a.name LIMIT 1000
                    """)
                for row in 0..<perAccount.count {
                    stats.perAccount.append(
                        HubStats.Account(
                            name: try perAccount.text(row, 0), changes: UInt64(try perAccount.int64(row, 1)),
                            horizonSeq: UInt64(try perAccount.int64(row, 2)), horizonMilliseconds: UInt64(try perAccount.int64(row, 3)),
                            rows: Int(try perAccount.int64(row, 4)), tombstones: Int(try perAccount.int64(row, 5)),
                            devices: Int(try perAccount.int64(row, 6))))
                }
                return stats
            }
        }
    }

    /// Deletes tombstones deleted more than `retentionMilliseconds` ago (their version's time) and
    /// records, per account, the horizon: the highest seq collected. A device whose cursor is behind
    /// it gets a full resync on its next sync. Returns how many tombstones went.
    @discardableResult
    public func collectTombstones(
        retentionMilliseconds: UInt64 = Store.defaultTombstoneRetentionMilliseconds,
        now: UInt64 = UInt64(Date().timeIntervalSince1970 * 1000)
    ) throws -> Int {
        let cutoff = now > retentionMilliseconds ? now - retentionMilliseconds : 0
        // Every version written before the cutoff sorts below (cutoff << 16, replica 0…0).
        let bound = PostgresValue.bigEndian(cutoff << 16) + [UInt8](repeating: 0, count: 16)
        return try HubError.wrapping {
            try HubSchema.check(on: db)
            return try db.transaction {
                let rows = try db.execute(
                    """
                    WITH doomed AS (
                      DELETE FROM concord_hub.records WHERE value IS NULL AND version < $1 RETURNING account, seq),
                    horizons AS (SELECT account, max(seq) AS seq, count(*) AS n FROM doomed GROUP BY account),
                    moved AS (
                      UPDATE concord_hub.accounts a SET horizon_seq = greatest(a.horizon_seq, h.seq), horizon_ms = $2
                      FROM horizons h WHERE a.name = h.account RETURNING h.n)
                    SELECT coalesce(sum(n), 0)::bigint FROM moved
                    """, [.bytea(bound), .int8(Int64(clamping: cutoff))], operation: "collect tombstones")
                return Int(try rows.int64(0, 0))
            }
        }
    }
}

/// What `HubAdmin.stats()` reports: the whole hub, and each account (the first 1,000 by name).
///
/// ```swift
/// let stats = try HubAdmin(url).stats()
/// print(stats.accounts, "accounts,", stats.rows, "rows,", stats.hubBytes / max(1, stats.accounts), "bytes each")
/// for a in stats.perAccount where a.horizonSeq > 0 { print(a.name, "collected up to seq", a.horizonSeq) }
/// ```
public struct HubStats: Sendable, Equatable {
    /// What the hub holds for one account.
    public struct Account: Sendable, Equatable {
        /// The account's name (its PostgreSQL role).
        public let name: String
        /// The account's last seq: how many changes its devices pushed (gaps for records that lost).
        public let changes: UInt64
        /// Tombstones at or below this seq were collected; a device behind it gets a full resync.
        public let horizonSeq: UInt64
        /// The cutoff of the last collection (wall-clock milliseconds; 0 if never).
        public let horizonMilliseconds: UInt64
        /// The account's rows: one per suite and key, tombstones included.
        public let rows: Int
        /// How many of the rows are tombstones.
        public let tombstones: Int
        /// The devices that have synced with the account.
        public let devices: Int
    }

    /// How many accounts the hub has.
    public let accounts: Int
    /// Rows of every account, tombstones included.
    public let rows: Int
    /// How many of the rows are tombstones.
    public let tombstones: Int
    /// Changes pushed to every account (the sum of their last seqs).
    public let changes: UInt64
    /// Devices that have synced, over every account.
    public let devices: Int
    /// Bytes of the hub's tables and indexes.
    public let hubBytes: Int
    /// Bytes of the whole database.
    public let databaseBytes: Int
    /// The first 1,000 accounts by name.
    public var perAccount: [Account]
}
