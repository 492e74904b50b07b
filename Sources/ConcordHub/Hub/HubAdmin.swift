import Concord
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
    /// - Throws: `ConcordError` when the server cannot be reached or refuses the login.
    public init(_ url: String) throws {
        db = try ConcordError.fromPostgres { try PostgresConnection(ConnectionString(url)) }
    }

    /// `user@host:port/database` (never the password).
    public var endpoint: String { db.endpoint }

    /// Creates the hub's schema, or upgrades an older one (nothing changes on a current hub); with
    /// `partitions`, lays `records` and `devices` out as that many hash partitions by account (a new
    /// hub is created so, an existing one moved, its rows copied); with `defaultMaxKeys` or
    /// `defaultMaxBytes`, sets the limits new accounts get. All in one transaction.
    ///
    /// <!-- assume: let url = "postgresql://postgres@localhost/settings" -->
    /// ```swift
    /// let setup = try HubAdmin(url).initialize(partitions: 16, defaultMaxKeys: .atMost(10_000))
    /// for warning in setup.warnings { print("warning:", warning) }
    /// ```
    @discardableResult
    public func initialize(partitions: Int? = nil, defaultMaxKeys: HubLimit? = nil, defaultMaxBytes: HubLimit? = nil) throws -> HubInitialization {
        try ConcordError.fromPostgres {
            let (from, to, partitioned) = try HubSchema.install(
                on: db, partitions: partitions, defaultMaxKeys: defaultMaxKeys, defaultMaxBytes: defaultMaxBytes)
            return HubInitialization(
                from: from, to: to, partitionedTables: partitioned, partitions: try HubPartitioning.partitions(of: "records", on: db),
                warnings: try accountWarnings())
        }
    }

    /// Creates account `name`: a new login role of that name with `password` (sent as a SCRAM verifier
    /// computed here, never in clear), no other attribute, a member of the device role, and the
    /// account's counter row, with the hub's default limits unless `maxKeys` or `maxBytes` are given.
    /// Its devices then see and change only its rows. A role of that name that exists already is
    /// refused (`.roleExists`, nothing changed): an account is only ever a role the hub created.
    ///
    /// <!-- assume: let admin = try HubAdmin("postgresql://postgres@localhost/settings"), pw = "correct horse battery staple" -->
    /// ```swift
    /// try admin.addAccount("alice", password: pw, maxKeys: .atMost(5_000))
    /// try admin.addAccount(HubAdmin.opaqueAccountName(), password: pw, label: "alice@example.com")
    /// ```
    ///
    /// - Parameters:
    ///   - name: The role's name (`isValidAccountName`); `opaqueAccountName()` makes one that says nothing.
    ///   - password: The role's password.
    ///   - maxKeys: The most live keys the account may hold (the hub's default when nil).
    ///   - maxBytes: The most bytes of names and values it may hold (the hub's default when nil).
    ///   - label: What the operator calls the account (shown by `stats`, readable only by the account's
    ///     own role and the hub's owner), for an opaque role name.
    public func addAccount(_ name: String, password: String, maxKeys: HubLimit? = nil, maxBytes: HubLimit? = nil, label: String? = nil) throws {
        guard Self.isValidAccountName(name) else { throw ConcordError.invalidAccountName(name) }
        if let label, !Self.isValidLabel(label) { throw ConcordError.invalidLabel(label) }
        try ConcordError.fromPostgres {
            try HubSchema.check(on: db)
            let verifier = try db.encryptPassword(password, user: name)
            try db.transaction {
                let existing = try db.execute("SELECT 1 FROM concord_hub.accounts WHERE name = $1", [.text(name)])
                guard existing.count == 0 else { throw ConcordError.accountExists(name) }
                guard try db.execute("SELECT 1 FROM pg_roles WHERE rolname = $1", [.text(name)]).count == 0 else { throw ConcordError.roleExists(name) }
                // Role names and passwords cannot be bound as parameters in CREATE ROLE: they travel as
                // transaction-local settings and the server quotes them (%I, %L).
                try db.execute(
                    "SELECT set_config('concord.new_account', $1, true), set_config('concord.new_verifier', $2, true)",
                    [.text(name), .text(verifier)], operation: "create role")
                do {
                    try db.execute(
                        """
                        DO $$ BEGIN
                          EXECUTE format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD %L',
                            current_setting('concord.new_account'), current_setting('concord.new_verifier'));
                          EXECUTE format('GRANT concord_hub_device TO %I', current_setting('concord.new_account'));
                        END $$
                        """, [], operation: "create role")
                } catch let error as PostgresError where error.sqlState == "42710" {
                    throw ConcordError.roleExists(name) // created by someone else in the meantime
                }
                // The account's history starts with a mark of its own (seq 0), so a device's first pull is
                // bound to one even before anything is pushed.
                try db.execute(
                    """
                    WITH a AS (
                      INSERT INTO concord_hub.accounts (name, label, max_keys, max_bytes, mark)
                      SELECT $1, $2, CASE WHEN $3 THEN $4::bigint ELSE m.default_max_keys END, CASE WHEN $5 THEN $6::bigint ELSE m.default_max_bytes END,
                        uuid_send(gen_random_uuid())
                      FROM concord_hub.meta m
                      RETURNING name, mark, last_seq)
                    INSERT INTO concord_hub.marks (account, mark, seq) SELECT name, mark, last_seq FROM a
                    """,
                    [
                        .text(name), label.map(PostgresValue.text) ?? .null, .bool(maxKeys != nil), maxKeys?.column ?? .null,
                        .bool(maxBytes != nil), maxBytes?.column ?? .null
                    ], operation: "add the account")
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

    /// A role name that says nothing about whom it serves (`acct_` and 20 random hex digits), for
    /// operators who must hide account names: every role of the server sees every role's name.
    public static func opaqueAccountName() -> String {
        var g = SystemRandomNumberGenerator()
        return "acct_" + (0..<10).map { _ in String(UInt8.random(in: 0...255, using: &g), radix: 16).leftPadded(2) }.joined()
    }

    /// 1–200 bytes of text without control characters.
    static func isValidLabel(_ label: String) -> Bool {
        (1...200).contains(label.utf8.count) && !label.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f }
    }

    /// Changes account `account`'s limits (nil: unchanged) and returns its use against them. A limit
    /// below the account's use is allowed: its devices can then only shrink it.
    ///
    /// <!-- assume: let admin = try HubAdmin("postgresql://postgres@localhost/settings") -->
    /// ```swift
    /// let usage = try admin.setQuota("alice", maxBytes: .atMost(8 << 20))
    /// ```
    @discardableResult
    public func setQuota(_ account: String, maxKeys: HubLimit? = nil, maxBytes: HubLimit? = nil) throws -> HubUsage {
        try ConcordError.fromPostgres {
            try HubSchema.check(on: db)
            let rows = try db.execute(
                """
                UPDATE concord_hub.accounts SET max_keys = CASE WHEN $2 THEN $3::bigint ELSE max_keys END,
                                                max_bytes = CASE WHEN $4 THEN $5::bigint ELSE max_bytes END
                WHERE name = $1 RETURNING keys_used, max_keys, bytes_used, max_bytes
                """,
                [.text(account), .bool(maxKeys != nil), maxKeys?.column ?? .null, .bool(maxBytes != nil), maxBytes?.column ?? .null],
                operation: "set the account's quota")
            guard rows.count == 1 else { throw ConcordError.unknownAccount(account) }
            return try Self.usage(rows, 0, from: 0)
        }
    }

    /// A use and its limits from columns keys_used, max_keys, bytes_used, max_bytes starting at `from`.
    static func usage(_ rows: PostgresRows, _ row: Int, from c: Int) throws(PostgresError) -> HubUsage {
        HubUsage(
            keys: try rows.int64(row, c), maxKeys: HubLimit(column: rows.isNull(row, c + 1) ? nil : try rows.int64(row, c + 1)),
            bytes: try rows.int64(row, c + 2), maxBytes: HubLimit(column: rows.isNull(row, c + 3) ? nil : try rows.int64(row, c + 3)))
    }

    /// What is wrong with the accounts' roles: an account is a role the hub created with LOGIN and
    /// membership of the device role only; a role that gained an attribute (SUPERUSER, BYPASSRLS,
    /// CREATEROLE, …) or a membership since, that lost the device role, that other roles can act as,
    /// or that is gone, is named with what to do. Empty when all is as the hub made it.
    public func accountWarnings() throws -> [String] {
        try ConcordError.fromPostgres {
            let rows = try db.execute(
                """
                SELECT a.name, r.oid IS NULL,
                  concat_ws(', ', CASE WHEN r.rolsuper THEN 'SUPERUSER' END, CASE WHEN r.rolbypassrls THEN 'BYPASSRLS' END,
                    CASE WHEN r.rolcreaterole THEN 'CREATEROLE' END, CASE WHEN r.rolcreatedb THEN 'CREATEDB' END,
                    CASE WHEN r.rolreplication THEN 'REPLICATION' END),
                  coalesce((SELECT string_agg(g.rolname || CASE WHEN m.admin_option THEN ' (with admin option)' ELSE '' END, ', ' ORDER BY g.rolname)
                    FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
                    WHERE m.member = r.oid AND (g.rolname <> 'concord_hub_device' OR m.admin_option)), ''),
                  EXISTS (SELECT 1 FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid WHERE m.member = r.oid AND g.rolname = 'concord_hub_device'),
                  coalesce((SELECT string_agg(u.rolname, ', ' ORDER BY u.rolname) FROM pg_auth_members m JOIN pg_roles u ON u.oid = m.member
                    WHERE m.roleid = r.oid), '')
                FROM concord_hub.accounts a LEFT JOIN pg_roles r ON r.rolname = a.name ORDER BY a.name
                """, operation: "check the accounts' roles")
            var warnings: [String] = []
            for row in 0..<rows.count {
                let name = try rows.text(row, 0)
                if try rows.bool(row, 1) {
                    warnings.append("account \(name) has no role any more (dropped?): its devices cannot log in")
                    continue
                }
                let attributes = try rows.text(row, 2)
                if !attributes.isEmpty {
                    let undo = attributes.split(separator: ",").map { "NO" + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
                    warnings.append(
                        "account \(name)'s role has \(attributes) since the hub created it\(attributes.contains("SUPERUSER") || attributes.contains("BYPASSRLS") ? " (it reads every account's rows)" : ""): ALTER ROLE \(name) \(undo)"
                    )
                }
                let memberships = try rows.text(row, 3)
                if !memberships.isEmpty {
                    warnings.append("account \(name)'s role is a member of \(memberships) since the hub created it (it holds their privileges): REVOKE them")
                }
                if try !rows.bool(row, 4) {
                    warnings.append(
                        "account \(name)'s role is no longer a member of \(HubSchema.deviceRole): its devices cannot sync (GRANT \(HubSchema.deviceRole) TO \(name))"
                    )
                }
                let members = try rows.text(row, 5)
                if !members.isEmpty {
                    warnings.append(
                        "roles \(members) are members of account \(name)'s role: they can act as it and read its rows (REVOKE \(name) FROM \(members))")
                }
            }
            return warnings
        }
    }

    /// Counts for the whole hub and per account, which server answered and whether it is the primary,
    /// and `accountWarnings()`.
    public func stats() throws -> HubStats {
        try ConcordError.fromPostgres {
            try HubSchema.check(on: db)
            let warnings = try accountWarnings()
            return try db.transaction(.snapshot) {
                let size = { (table: String) in
                    "pg_total_relation_size('\(table)') + coalesce((SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('\(table)')), 0)"
                }
                let totals = try db.execute(
                    """
                    SELECT (SELECT count(*) FROM concord_hub.accounts),
                           (SELECT count(*) FROM concord_hub.records),
                           (SELECT count(*) FROM concord_hub.records r WHERE \(HubSchema.isTombstone("r"))),
                           (SELECT coalesce(sum(last_seq), 0)::bigint FROM concord_hub.accounts),
                           (SELECT count(DISTINCT (account, device)) FROM concord_hub.devices),
                           (\(size("concord_hub.records")) + \(size("concord_hub.devices")) + pg_total_relation_size('concord_hub.accounts'))::bigint,
                           pg_database_size(current_database())::bigint,
                           NOT pg_is_in_recovery(),
                           (SELECT default_max_keys FROM concord_hub.meta), (SELECT default_max_bytes FROM concord_hub.meta)
                    """)
                var stats = HubStats(
                    accounts: Int(try totals.int64(0, 0)), rows: Int(try totals.int64(0, 1)),
                    tombstones: Int(try totals.int64(0, 2)), changes: UInt64(try totals.int64(0, 3)),
                    devices: Int(try totals.int64(0, 4)), hubBytes: Int(try totals.int64(0, 5)),
                    databaseBytes: Int(try totals.int64(0, 6)), server: db.endpoint, isPrimary: try totals.bool(0, 7),
                    partitions: try HubPartitioning.partitions(of: "records", on: db),
                    defaultMaxKeys: HubLimit(column: totals.isNull(0, 8) ? nil : try totals.int64(0, 8)),
                    defaultMaxBytes: HubLimit(column: totals.isNull(0, 9) ? nil : try totals.int64(0, 9)),
                    warnings: warnings, perAccount: [])
                let perAccount = try db.execute(
                    """
                    SELECT a.name, a.last_seq, a.horizon_seq, a.horizon_ms,
                           (SELECT count(*) FROM concord_hub.records r WHERE r.account = a.name),
                           (SELECT count(*) FROM concord_hub.records r WHERE r.account = a.name AND \(HubSchema.isTombstone("r"))),
                           (SELECT count(DISTINCT device) FROM concord_hub.devices d WHERE d.account = a.name),
                           a.label, a.keys_used, a.max_keys, a.bytes_used, a.max_bytes
                    FROM concord_hub.accounts a ORDER BY a.name LIMIT 1000
                    """)
                for row in 0..<perAccount.count {
                    stats.perAccount.append(
                        HubStats.Account(
                            name: try perAccount.text(row, 0), label: perAccount.isNull(row, 7) ? nil : try perAccount.text(row, 7),
                            changes: UInt64(try perAccount.int64(row, 1)),
                            horizonSeq: UInt64(try perAccount.int64(row, 2)), horizonMilliseconds: UInt64(try perAccount.int64(row, 3)),
                            rows: Int(try perAccount.int64(row, 4)), tombstones: Int(try perAccount.int64(row, 5)),
                            devices: Int(try perAccount.int64(row, 6)), usage: try Self.usage(perAccount, row, from: 8)))
                }
                return stats
            }
        }
    }

    /// Deletes tombstones deleted more than `retention` before `now` (their version's time), and
    /// values that expired more than `retention` before it, and records, per account, the
    /// horizon: the highest seq collected. A device whose cursor is behind it gets a full resync on
    /// its next sync. Returns how many rows went.
    ///
    /// <!-- assume: let admin = try HubAdmin("postgresql://postgres@localhost/settings") -->
    /// ```swift
    /// let removed = try admin.collectTombstones(retention: .seconds(7 * 86_400))
    /// ```
    @discardableResult
    public func collectTombstones(retention: Duration = Store.defaultTombstoneRetention, now: Date = Date()) throws -> Int {
        let retentionMilliseconds = retention.wholeMilliseconds
        let now = UInt64(max(0, (now.timeIntervalSince1970 * 1000).rounded()))
        let cutoff = now > retentionMilliseconds ? now - retentionMilliseconds : 0
        // Every version written before the cutoff sorts below (cutoff << 16, replica 0…0).
        let bound = PostgresValue.bigEndian(cutoff << 16) + [UInt8](repeating: 0, count: 16)
        return try ConcordError.fromPostgres {
            try HubSchema.check(on: db)
            return try db.transaction {
                let rows = try db.execute(
                    """
                    WITH doomed AS (
                      DELETE FROM concord_hub.records r
                      WHERE (\(HubSchema.isTombstone("r")) AND version < $1) OR (expires_ms IS NOT NULL AND NOT policy AND expires_ms <= $2)
                      RETURNING account, seq),
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

/// What `HubAdmin.initialize()` did, and what it found wrong with the accounts' roles.
///
/// <!-- assume: let url = "postgresql://postgres@localhost/settings" -->
/// ```swift
/// let setup = try HubAdmin(url).initialize()
/// print(setup.from == setup.to ? "nothing changed" : "schema \(setup.from) -> \(setup.to)")
/// ```
public struct HubInitialization: Sendable, Equatable {
    /// The schema version found (0: there was no hub).
    public let from: Int
    /// The schema version now.
    public let to: Int
    /// The tables laid out anew as partitions (empty when their layout was already the one asked for).
    public let partitionedTables: [String]
    /// How many partitions `records` has now (nil: it is one table).
    public let partitions: Int?
    /// `HubAdmin.accountWarnings()`.
    public let warnings: [String]
}

/// What `HubAdmin.stats()` reports: the whole hub, and each account (the first 1,000 by name).
///
/// <!-- assume: let url = "postgresql://postgres@localhost/settings" -->
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
        /// What the operator calls it, when its role name is opaque.
        public let label: String?
        /// The account's last seq: how many changes its devices pushed (gaps for records that lost).
        public let changes: UInt64
        /// Tombstones at or below this seq were collected; a device behind it gets a full resync.
        public let horizonSeq: UInt64
        /// The cutoff of the last collection (wall-clock milliseconds; 0 if never).
        package let horizonMilliseconds: UInt64
        /// The cutoff of the last collection; nil if none ran.
        public var horizon: Date? { horizonMilliseconds == 0 ? nil : Date(milliseconds: horizonMilliseconds) }
        /// The account's rows: one per suite and key, tombstones included.
        public let rows: Int
        /// How many of the rows are tombstones.
        public let tombstones: Int
        /// The devices that have synced with the account.
        public let devices: Int
        /// Its keys and bytes against its limits.
        public let usage: HubUsage
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
    /// The server that answered (`user@host:port/database`): with a multi-host connection string,
    /// the one libpq chose.
    public let server: String
    /// Whether that server is a primary (false: a standby in recovery, read-only).
    public let isPrimary: Bool
    /// How many hash partitions `records` and `devices` have (nil: each is one table).
    public let partitions: Int?
    /// The limits a new account gets.
    public let defaultMaxKeys: HubLimit
    /// The byte limit a new account gets.
    public let defaultMaxBytes: HubLimit
    /// `HubAdmin.accountWarnings()`.
    public let warnings: [String]
    /// The first 1,000 accounts by name.
    public var perAccount: [Account]
}
