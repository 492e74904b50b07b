import Concord

/// Lays out the hub's per-account tables, `records` and `devices`, as N hash partitions by account
/// (`records_p0` … `records_pN-1`), on a new hub or an existing one, inside the caller's transaction.
///
/// Every statement names its account, and both tables' primary keys start with it, so a statement
/// touches one partition; nothing else changes for devices. A table is moved by building its new
/// layout beside it: rename it, create the partitioned table with its columns, defaults and checks
/// (`LIKE`), copy the rows, drop the old table, then give the new one what the old one had — its
/// primary key, foreign keys and indexes, row-level security and policies, grants, owner and
/// triggers, read from the catalog first — so the procedure does not depend on which schema version
/// defined them. Each partition gets row-level security with the parent's policies and no grant: a
/// device role that names a partition (`SELECT * FROM concord_hub.records_p3`) is refused, and would
/// see only its own rows even if an operator granted it.
///
/// The tables are locked (ACCESS EXCLUSIVE, `accounts` first as a push takes it) for the transaction:
/// devices' statements wait, then go on.
///
/// <!-- assume: let db: PostgresConnection = given() -->
/// ```swift
/// try db.transaction { try HubPartitioning.apply(partitions: 16, on: db) }
/// ```
enum HubPartitioning {
    static let tables = ["records", "devices"]
    static let allowed = 2...1024

    /// How `table` is laid out now: nil when it is a plain table, else its number of partitions.
    static func partitions(of table: String, on db: PostgresConnection) throws(PostgresError) -> Int? {
        let rows = try db.execute(
            """
            SELECT c.relkind = 'p', (SELECT count(*) FROM pg_inherits i WHERE i.inhparent = c.oid)
            FROM pg_class c WHERE c.oid = to_regclass($1)
            """, [.text("concord_hub." + table)], operation: "read the hub's table layout")
        guard rows.count == 1, try rows.bool(0, 0) else { return nil }
        return Int(try rows.int64(0, 1))
    }

    /// Moves every table whose layout differs to `partitions` hash partitions; returns the tables moved.
    @discardableResult
    static func apply(partitions: Int, on db: PostgresConnection) throws -> [String] {
        guard allowed.contains(partitions) else { throw ConcordError.invalidPartitions(partitions) }
        let moving = try tables.filter { try Self.partitions(of: $0, on: db) != partitions }
        guard !moving.isEmpty else { return [] }
        // The account rows first, as every push does (its counter), then the tables: a push that holds
        // its account's row finishes before the move begins, and none can then wait on the move
        // while the move waits on it.
        try db.execute(
            "LOCK TABLE concord_hub.accounts, concord_hub.records, concord_hub.devices IN ACCESS EXCLUSIVE MODE",
            operation: "lock the hub's tables to partition them")
        for table in moving { try move(table, into: partitions, on: db) }
        return moving
    }

    private static func move(_ table: String, into n: Int, on db: PostgresConnection) throws {
        let name = "concord_hub." + table
        let op = "partition concord_hub.\(table)"
        let restore = try definitions(of: table, on: db)
        // Foreign keys of other tables pointing at this one go while it is rebuilt, and come back after.
        for (owner, constraint, _) in restore.referencing { try db.execute("ALTER TABLE \(owner) DROP CONSTRAINT \(quoted(constraint))", operation: op) }
        try db.execute("ALTER TABLE \(name) RENAME TO \(table)_previous", operation: op)
        let old = "concord_hub.\(table)_previous"
        try db.execute(
            """
            CREATE TABLE \(name) (LIKE \(old) INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING GENERATED INCLUDING STORAGE INCLUDING COMMENTS)
            PARTITION BY HASH (account)
            """, operation: op)
        for r in 0..<n {
            try db.execute(
                "CREATE TABLE concord_hub.\(table)_pnew\(r) PARTITION OF \(name) FOR VALUES WITH (MODULUS \(n), REMAINDER \(r))", operation: op)
        }
        try db.execute("INSERT INTO \(name) SELECT * FROM \(old)", operation: op)
        try db.execute("DROP TABLE \(old)", operation: op)
        for r in 0..<n { try db.execute("ALTER TABLE concord_hub.\(table)_pnew\(r) RENAME TO \(table)_p\(r)", operation: op) }
        for statement in restore.statements { try db.execute(statement, operation: op) }
        for r in 0..<n {
            let partition = "concord_hub.\(table)_p\(r)"
            try db.execute("ALTER TABLE \(partition) OWNER TO \(quoted(restore.owner))", operation: op)
            try db.execute("ALTER TABLE \(partition) ENABLE ROW LEVEL SECURITY", operation: op)
            for policy in restore.policies { try db.execute(policy(partition), operation: op) }
        }
        for (owner, constraint, definition) in restore.referencing {
            try db.execute("ALTER TABLE \(owner) ADD CONSTRAINT \(quoted(constraint)) \(definition)", operation: op)
        }
    }

    /// What a table has beyond its columns, as statements that give it to a table of the same name.
    private struct Definitions {
        var owner = ""
        var statements: [String] = []
        /// CREATE POLICY for a table named by the argument.
        var policies: [(String) -> String] = []
        var referencing: [(owner: String, constraint: String, definition: String)] = []
    }

    private static func definitions(of table: String, on db: PostgresConnection) throws -> Definitions {
        let oid = [PostgresValue.text("concord_hub." + table)]
        let op = "read concord_hub.\(table)'s definition"
        var d = Definitions()
        let owner = try db.execute(
            "SELECT pg_get_userbyid(relowner)::text, relrowsecurity, relforcerowsecurity FROM pg_class WHERE oid = $1::regclass", oid, operation: op)
        d.owner = try owner.text(0, 0)
        let name = "concord_hub." + table
        d.statements.append("ALTER TABLE \(name) OWNER TO \(quoted(d.owner))")
        // Primary key and unique constraints first (foreign keys may need them), then the rest.
        let constraints = try db.execute(
            """
            SELECT conname::text, pg_get_constraintdef(oid) FROM pg_constraint
            WHERE conrelid = $1::regclass AND contype IN ('p', 'u', 'f', 'x') ORDER BY contype = 'f', conname
            """, oid, operation: op)
        for r in 0..<constraints.count {
            d.statements.append("ALTER TABLE \(name) ADD CONSTRAINT \(quoted(try constraints.text(r, 0))) \(try constraints.text(r, 1))")
        }
        let indexes = try db.execute(
            """
            SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i
            WHERE i.indrelid = $1::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid AND c.conrelid = i.indrelid)
            """, oid, operation: op)
        for r in 0..<indexes.count { d.statements.append(try indexes.text(r, 0)) }
        if try owner.bool(0, 1) { d.statements.append("ALTER TABLE \(name) ENABLE ROW LEVEL SECURITY") }
        if try owner.bool(0, 2) { d.statements.append("ALTER TABLE \(name) FORCE ROW LEVEL SECURITY") }
        let policies = try db.execute(
            """
            SELECT policyname::text, permissive, array_to_string(roles, ', '), cmd, qual, with_check FROM pg_policies
            WHERE schemaname = 'concord_hub' AND tablename = $1
            """, [.text(table)], operation: op)
        for r in 0..<policies.count {
            let (policy, permissive, roles, command) = (try policies.text(r, 0), try policies.text(r, 1), try policies.text(r, 2), try policies.text(r, 3))
            let using = policies.isNull(r, 4) ? "" : " USING (\(try policies.text(r, 4)))"
            let check = policies.isNull(r, 5) ? "" : " WITH CHECK (\(try policies.text(r, 5)))"
            let make = { (target: String) in "CREATE POLICY \(quoted(policy)) ON \(target) AS \(permissive) FOR \(command) TO \(roles)\(using)\(check)" }
            d.statements.append(make(name))
            d.policies.append(make)
        }
        // Table and column grants, from the access lists (aclexplode), the owner's own left out.
        let grants = try db.execute(
            """
            SELECT a.privilege_type, CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(a.grantee)) END, a.is_grantable, NULL::text
            FROM pg_class c, aclexplode(c.relacl) a WHERE c.oid = $1::regclass AND a.grantee <> c.relowner
            UNION ALL
            SELECT a.privilege_type, CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(a.grantee)) END, a.is_grantable, quote_ident(t.attname)
            FROM pg_attribute t, aclexplode(t.attacl) a
            WHERE t.attrelid = $1::regclass AND t.attnum > 0 AND NOT t.attisdropped AND t.attacl IS NOT NULL AND a.grantee <> (SELECT relowner FROM pg_class WHERE oid = $1::regclass)
            """, oid, operation: op)
        for r in 0..<grants.count {
            let column = grants.isNull(r, 3) ? "" : " (\(try grants.text(r, 3)))"
            let option = try grants.bool(r, 2) ? " WITH GRANT OPTION" : ""
            d.statements.append("GRANT \(try grants.text(r, 0))\(column) ON \(name) TO \(try grants.text(r, 1))\(option)")
        }
        let triggers = try db.execute(
            "SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = $1::regclass AND NOT tgisinternal ORDER BY tgname", oid, operation: op)
        for r in 0..<triggers.count { d.statements.append(try triggers.text(r, 0)) }
        let referencing = try db.execute(
            """
            SELECT conrelid::regclass::text, conname::text, pg_get_constraintdef(oid) FROM pg_constraint
            WHERE confrelid = $1::regclass AND contype = 'f' AND conrelid <> confrelid
            """, oid, operation: op)
        for r in 0..<referencing.count {
            d.referencing.append((try referencing.text(r, 0), try referencing.text(r, 1), try referencing.text(r, 2)))
        }
        return d
    }

    private static func quoted(_ identifier: String) -> String { "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
}
