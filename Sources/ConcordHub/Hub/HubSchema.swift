import Concord

/// The hub's tables in PostgreSQL, versioned: `install` creates them, or upgrades an older hub
/// step by step, in one transaction under an advisory lock (two `hub init` at once are safe), and
/// does nothing on a hub that is current.
///
/// Per account (one PostgreSQL role each, row-level security on every table):
/// - `accounts`: the account's counter row (`last_seq`, taken under a row lock by every push, so seqs
///   become visible in order), its hub replica id (the peer id devices know the hub by), the
///   tombstone-collection horizon, its secret NOTIFY channel, and its limits and use (version 3:
///   `HubSchema+Accounts.swift`).
/// - `records`: one row per (suite, key): the version (24 bytes: hlc big-endian, then the writer's
///   replica id, so byte order is version order), the value bytes (NULL for a tombstone; a policy
///   record's state when `policy` is true: a counter, max, min or set, merged in Swift by the push),
///   the seq of its last change, and the device that pushed it.
/// - `devices`: how far the hub has merged each device's journal, per sync scope, bound to the device's
///   history mark, and the hub's mark the device holds (version 4).
/// - `marks`: the account's history marks, one per push that changed its seqs (version 4:
///   `HubSchema+Marks.swift`).
/// - `records.expires_ms` (version 5): when a plain value expires, in milliseconds since 1970 (NULL:
///   never); a row that expired reads as absent on every device, and `hub gc` drops it like a tombstone.
/// - `records.sealed` (version 6): a sealed record of an encrypted suite, under its row key, its sealed
///   bytes in `value` (`HubSchema+Sealed.swift`).
///
/// `records` and `devices` may be hash-partitioned by account (`HubPartitioning`); every migration
/// applies to either layout.
enum HubSchema {
    static let version = 6
    static let schema = "concord_hub"
    static let deviceRole = "concord_hub_device"

    /// The statements that bring a hub from version `index` to `index + 1`.
    static let migrations: [[String]] = [
        [
            """
            DO $$ BEGIN
              IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'concord_hub_device') THEN
                CREATE ROLE concord_hub_device NOLOGIN;
              END IF;
            EXCEPTION WHEN duplicate_object OR unique_violation THEN
              NULL;  -- another database of this server created the shared role at the same moment
            END $$
            """,
            """
            CREATE TABLE concord_hub.accounts (
              name text PRIMARY KEY,
              hub_replica bytea NOT NULL UNIQUE DEFAULT uuid_send(gen_random_uuid()) CHECK (length(hub_replica) = 16),
              last_seq bigint NOT NULL DEFAULT 0 CHECK (last_seq >= 0),
              horizon_seq bigint NOT NULL DEFAULT 0,
              horizon_ms bigint NOT NULL DEFAULT 0,
              created_at timestamptz NOT NULL DEFAULT now())
            """,
            """
            CREATE TABLE concord_hub.records (
              account text NOT NULL REFERENCES concord_hub.accounts (name) ON DELETE CASCADE,
              suite text NOT NULL,
              key text NOT NULL,
              version bytea NOT NULL CHECK (length(version) = 24),
              value bytea,
              seq bigint NOT NULL,
              pushed_by bytea NOT NULL CHECK (length(pushed_by) = 16),
              PRIMARY KEY (account, suite, key))
            """,
            "CREATE INDEX records_by_seq ON concord_hub.records (account, seq)",
            """
            CREATE TABLE concord_hub.devices (
              account text NOT NULL REFERENCES concord_hub.accounts (name) ON DELETE CASCADE,
              device bytea NOT NULL CHECK (length(device) = 16),
              scope text NOT NULL,
              pushed bigint NOT NULL DEFAULT 0,
              last_seen timestamptz NOT NULL DEFAULT now(),
              PRIMARY KEY (account, device, scope))
            """,
            "ALTER TABLE concord_hub.accounts ENABLE ROW LEVEL SECURITY",
            "ALTER TABLE concord_hub.records ENABLE ROW LEVEL SECURITY",
            "ALTER TABLE concord_hub.devices ENABLE ROW LEVEL SECURITY",
            "CREATE POLICY own_account ON concord_hub.accounts USING (name = current_user) WITH CHECK (name = current_user)",
            "CREATE POLICY own_records ON concord_hub.records USING (account = current_user) WITH CHECK (account = current_user)",
            "CREATE POLICY own_devices ON concord_hub.devices USING (account = current_user) WITH CHECK (account = current_user)",
            "GRANT USAGE ON SCHEMA concord_hub TO concord_hub_device",
            "GRANT SELECT ON concord_hub.meta TO concord_hub_device",
            "GRANT SELECT, UPDATE (last_seq) ON concord_hub.accounts TO concord_hub_device",
            "GRANT SELECT, INSERT, UPDATE ON concord_hub.records, concord_hub.devices TO concord_hub_device"
        ],
        [
            // Version 2: policy records (a counter's, max's, min's or set's state); a version-1 client is
            // refused by this hub (`newerSchema`) rather than comparing them as plain values.
            "ALTER TABLE concord_hub.records ADD COLUMN policy boolean NOT NULL DEFAULT false",
            "ALTER TABLE concord_hub.records ADD CONSTRAINT policy_has_state CHECK (NOT policy OR value IS NOT NULL)"
        ],
        accountsMigration,
        marksMigration,
        [
            // Version 5: a plain value may expire (`expires_ms`, milliseconds since 1970; NULL: never). A
            // version-4 client is refused by this hub (`newerSchema`) rather than dropping the expiry.
            "ALTER TABLE concord_hub.records ADD COLUMN expires_ms bigint"
        ],
        sealedMigration
    ]

    /// Creates or upgrades the schema, then (with `partitions`) lays `records` and `devices` out in that
    /// many hash partitions, and sets the defaults of new accounts' limits, all in one transaction;
    /// returns the version found (0: none), the version now, and the tables laid out anew.
    static func install(on db: PostgresConnection, partitions: Int? = nil, defaultMaxKeys: HubLimit? = nil, defaultMaxBytes: HubLimit? = nil)
        throws -> (from: Int, to: Int, partitioned: [String])
    {
        if let partitions, !HubPartitioning.allowed.contains(partitions) { throw ConcordError.invalidPartitions(partitions) }
        return try db.transaction {
            try db.execute("SELECT pg_advisory_xact_lock(hashtext('concord_hub schema'))")
            try db.execute("CREATE SCHEMA IF NOT EXISTS concord_hub")
            try db.execute(
                """
                CREATE TABLE IF NOT EXISTS concord_hub.meta (
                  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
                  schema_version integer NOT NULL)
                """)
            let rows = try db.execute("SELECT schema_version FROM concord_hub.meta")
            let found = rows.count == 0 ? 0 : Int(try rows.int64(0, 0))
            guard found <= version else { throw ConcordError.newerSchema(found: found, supported: version) }
            for step in found..<version {
                for statement in migrations[step] { try db.execute(statement, operation: "upgrade the hub schema to version \(step + 1)") }
            }
            try db.execute(
                """
                INSERT INTO concord_hub.meta (schema_version) VALUES ($1::bigint::integer)
                ON CONFLICT (singleton) DO UPDATE SET schema_version = EXCLUDED.schema_version
                """, [.int8(Int64(version))])
            let partitioned = try partitions.map { try HubPartitioning.apply(partitions: $0, on: db) } ?? []
            if let defaultMaxKeys {
                try db.execute("UPDATE concord_hub.meta SET default_max_keys = $1::bigint", [defaultMaxKeys.column], operation: "set the default key limit")
            }
            if let defaultMaxBytes {
                try db.execute("UPDATE concord_hub.meta SET default_max_bytes = $1::bigint", [defaultMaxBytes.column], operation: "set the default byte limit")
            }
            return (found, version, partitioned)
        }
    }

    /// The schema version a connection sees (throws when there is no hub, or a newer one).
    static func check(on db: PostgresConnection) throws {
        let exists = try db.execute("SELECT to_regclass('concord_hub.meta') IS NOT NULL")
        guard try exists.bool(0, 0) else { throw ConcordError.notInitialized(endpoint: db.endpoint) }
        let rows = try db.execute("SELECT schema_version FROM concord_hub.meta")
        let found = rows.count == 0 ? 0 : Int(try rows.int64(0, 0))
        guard found <= version else { throw ConcordError.newerSchema(found: found, supported: version) }
        guard found == version else { throw ConcordError.notInitialized(endpoint: db.endpoint) }
    }
}
