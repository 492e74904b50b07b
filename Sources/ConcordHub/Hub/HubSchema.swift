/// The hub's tables in PostgreSQL, versioned: `install` creates them, or upgrades an older hub
/// step by step, in one transaction under an advisory lock (two `hub init` at once are safe), and
/// does nothing on a hub that is current.
///
/// Per account (one PostgreSQL role each, row-level security on every table):
/// - `accounts`: the account's counter row (`last_seq`, taken under a row lock by every push, so seqs
///   become visible in order), its hub replica id (the peer id devices know the hub by), and the
///   tombstone-collection horizon.
/// - `records`: one row per (suite, key): the version (24 bytes: hlc big-endian, then the writer's
///   replica id, so byte order is version order), the value bytes (NULL for a tombstone; a policy
///   record's state when `policy` is true: a counter, max, min or set, merged in Swift by the push),
///   the seq of its last change, and the device that pushed it.
/// - `devices`: how far the hub has merged each device's journal, per sync scope, bound to the device's
///   history mark, and the hub's mark the device holds.
/// - `marks` (version 3): the account's history marks, one per push that changed its seqs (see the
///   architecture document, "Trust and time").
enum HubSchema {
    static let version = 3
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
        [
            // Version 3: history marks. Every push that hands out seqs writes a new mark of the account's
            // history (`accounts.mark`, and a row of `marks`); a device binds its cursor on the hub to the
            // mark of its pull, and the hub's cursor on a device (`devices.pushed`) is bound to the device's
            // mark of its push, so a hub restored from a dump and a device restored from a backup are each
            // found by the first sync that meets them. Existing accounts get a mark covering what they
            // hold; existing device rows stay unbound (nothing proves them), so each device resends
            // everything once. A version-2 client is refused (`newerSchema`): it would skip what a
            // restored hub hands out again.
            """
            ALTER TABLE concord_hub.accounts
              ADD COLUMN mark bytea CHECK (mark IS NULL OR length(mark) = 16),
              ADD COLUMN marks_pruned bigint NOT NULL DEFAULT 0
            """,
            """
            CREATE TABLE concord_hub.marks (
              account text NOT NULL REFERENCES concord_hub.accounts (name) ON DELETE CASCADE,
              mark bytea NOT NULL CHECK (length(mark) = 16),
              seq bigint NOT NULL,
              created_at timestamptz NOT NULL DEFAULT now(),
              PRIMARY KEY (account, mark))
            """,
            "CREATE INDEX marks_by_seq ON concord_hub.marks (account, seq)",
            "UPDATE concord_hub.accounts SET mark = uuid_send(gen_random_uuid())",
            "INSERT INTO concord_hub.marks (account, mark, seq) SELECT name, mark, last_seq FROM concord_hub.accounts",
            """
            ALTER TABLE concord_hub.devices
              ADD COLUMN mark bytea CHECK (mark IS NULL OR length(mark) = 16),
              ADD COLUMN mark_seq bigint,
              ADD COLUMN echo_safe boolean NOT NULL DEFAULT false,
              ADD COLUMN since bigint NOT NULL DEFAULT 0,
              ADD COLUMN hub_mark bytea CHECK (hub_mark IS NULL OR length(hub_mark) = 16),
              ADD COLUMN found_restored boolean NOT NULL DEFAULT false,
              ADD CONSTRAINT mark_covers_pushed CHECK (mark IS NULL OR mark_seq >= pushed)
            """,
            // What devices pushed before marks existed is not proven to be theirs still: it is left out of
            // their pulls only once they prove they merged the hub's history through here.
            "UPDATE concord_hub.devices d SET since = a.last_seq FROM concord_hub.accounts a WHERE a.name = d.account",
            "ALTER TABLE concord_hub.marks ENABLE ROW LEVEL SECURITY",
            "CREATE POLICY own_marks ON concord_hub.marks USING (account = current_user) WITH CHECK (account = current_user)",
            "GRANT SELECT, INSERT, DELETE ON concord_hub.marks TO concord_hub_device",
            "GRANT UPDATE (mark, marks_pruned) ON concord_hub.accounts TO concord_hub_device"
        ]
    ]

    /// Creates or upgrades the schema; returns the version found (0: none) and the version now.
    static func install(on db: PostgresConnection) throws -> (from: Int, to: Int) {
        try db.transaction {
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
            guard found <= version else { throw HubError.newerSchema(found: found, supported: version) }
            for step in found..<version {
                for statement in migrations[step] { try db.execute(statement, operation: "upgrade the hub schema to version \(step + 1)") }
            }
            try db.execute(
                """
                INSERT INTO concord_hub.meta (schema_version) VALUES ($1::bigint::integer)
                ON CONFLICT (singleton) DO UPDATE SET schema_version = EXCLUDED.schema_version
                """, [.int8(Int64(version))])
            return (found, version)
        }
    }

    /// The schema version a connection sees (throws when there is no hub, or a newer one).
    static func check(on db: PostgresConnection) throws {
        let exists = try db.execute("SELECT to_regclass('concord_hub.meta') IS NOT NULL")
        guard try exists.bool(0, 0) else { throw HubError.notInitialized(endpoint: db.endpoint) }
        let rows = try db.execute("SELECT schema_version FROM concord_hub.meta")
        let found = rows.count == 0 ? 0 : Int(try rows.int64(0, 0))
        guard found <= version else { throw HubError.newerSchema(found: found, supported: version) }
        guard found == version else { throw HubError.notInitialized(endpoint: db.endpoint) }
    }
}
