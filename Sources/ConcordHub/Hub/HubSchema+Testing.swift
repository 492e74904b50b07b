extension HubAdmin {
    /// Creates the hub's schema as version `version` left it (no later step), for tests of an upgrade.
    package func createSchema(asOfVersion version: Int) throws {
        precondition((1..<HubSchema.version).contains(version))
        try db.transaction {
            try db.execute("CREATE SCHEMA concord_hub")
            try db.execute("CREATE TABLE concord_hub.meta (singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton), schema_version integer NOT NULL)")
            for step in 0..<version {
                for statement in HubSchema.migrations[step] { try db.execute(statement) }
            }
            try db.execute("INSERT INTO concord_hub.meta (schema_version) VALUES ($1::bigint::integer)", [.int8(Int64(version))])
        }
    }
}
