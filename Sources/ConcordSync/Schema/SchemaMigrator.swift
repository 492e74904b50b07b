/// Applies a schema's steps inside one write transaction of the write core: the migration run
/// when a suite is opened, and the catch-up of values merged in from replicas at older versions.
struct SchemaMigrator {
    let schema: Schema
    let suite: String

    /// On open: runs the migrations this replica has not run (their policy declarations too), and
    /// catches up every value of an older shape; stamps the version. A replica at a newer version is
    /// left as it is (this program's writes will be refused).
    func open(in w: ReplicaTransaction) throws {
        let stored = try w.schemaVersion(suite: suite) ?? 0
        guard stored <= schema.version else { return }
        try w.migrating {
            for migration in schema.migrations where migration.version > stored {
                for step in migration.steps {
                    if case .declare(let policy, let key, let isPrefix) = step.action {
                        try w.declare(policy, suite: suite, key: key, isPrefix: isPrefix)
                    }
                }
            }
            _ = try apply(only: nil, in: w)
            if stored < schema.version { try w.stampSchema(schema.version, suite: suite) }
        }
    }

    /// On the way in: migrates the values of `keys` a merge just stored (unless the replica now holds
    /// the suite at a newer version than this program's); returns how many records it changed.
    func migrateIncoming(_ keys: [String], in w: ReplicaTransaction) throws -> Int {
        guard try (w.schemaVersion(suite: suite) ?? 0) <= schema.version else { return 0 }
        return try w.migrating { try apply(only: Set(keys), in: w) }
    }

    /// Applies every data step, in version order, to the keys in `only` (and to the keys renames
    /// move them to), or to every key when `only` is nil. Returns how many records changed.
    private func apply(only: Set<String>?, in w: ReplicaTransaction) throws -> Int {
        var touched = only
        var changed = 0
        func concerns(_ key: String) -> Bool { touched?.contains(key) ?? true }
        for migration in schema.migrations {
            for step in migration.steps {
                switch step.action {
                case .rename(let from, let to) where concerns(from):
                    guard let source = try w.record(suite: suite, key: from), !source.isTombstone else { continue }
                    let target = try w.record(suite: suite, key: to)
                    let merged = RecordMerge.merge(target, source)!
                    if merged != target {
                        try w.storeMigrated(merged, suite: suite, key: to)
                        changed += 1
                    }
                    try w.storeMigrated(Self.removal(of: source), suite: suite, key: from)
                    changed += 1
                    touched?.insert(to)
                case .drop(let key) where concerns(key):
                    guard let record = try w.record(suite: suite, key: key), !record.isTombstone else { continue }
                    try w.storeMigrated(Self.removal(of: record), suite: suite, key: key)
                    changed += 1
                case .convert(let key, let applies, let transform) where concerns(key):
                    guard let record = try w.record(suite: suite, key: key), record.isPlain, let value = try record.value(), applies(value) else { continue }
                    let converted: Value?
                    do { converted = try transform(value) } catch {
                        throw ConcordError.migrationFailed(suite: suite, version: migration.version, key: key, reason: "\(error)")
                    }
                    let bytes = try converted.map { try ValueCodec.encode($0, key: key) }
                    try w.storeMigrated(Record(version: Self.after(record), valueBytes: bytes), suite: suite, key: key)
                    changed += 1
                default:
                    continue
                }
            }
        }
        return changed
    }

    /// The version of a migration's write replacing `record`: just after it, by the same replica,
    /// so every replica migrating it writes the same record, and a newer write made elsewhere still wins.
    static func after(_ record: Record) -> Version {
        Version(hlc: record.version.hlc &+ 1, replica: record.version.replica)
    }

    /// A removal of `record` at the version just after it (a policy record's takes back all it holds).
    static func removal(of record: Record) -> Record {
        guard var state = record.state else { return Record(version: after(record), valueBytes: nil) }
        state.replaceWhole(with: nil, at: after(record))
        return Record(version: after(record), state: state)
    }
}

extension Store {
    /// The suite named `name`, opened with `schema`: the migrations this replica has not run yet run
    /// now (in one write transaction, as writes that sync), values written at older versions are
    /// migrated as they arrive, and while the replica holds the suite at a newer version than
    /// `schema.version`, this process's writes to it are refused (``ConcordError`` `.newerSchema`).
    ///
    /// ```swift
    /// let app = try store.suite("app", schema: Schema(version: 2, migrations: [
    ///     Migration(to: 2, .rename("theme", to: "appearance.theme")),
    /// ]))
    /// ```
    ///
    /// - Parameters:
    ///   - name: The suite's name (1–128 bytes of letters, digits, `.`, `_`, `-`).
    ///   - schema: The schema this program writes, with the migrations to it.
    /// - Returns: The suite, migrated to `schema.version` in this replica.
    /// - Throws: ``ConcordError`` `.invalidSuiteName`, `.invalidSchema`, `.migrationFailed` (nothing was
    ///   migrated), or a storage error.
    public func suite(_ name: String, schema: Schema) throws -> Suite {
        let suite = try self.suite(name)
        guard name != ReservedSuite.name else { throw ConcordError.reservedSuite(name) }
        try schema.validate(suite: name)
        let migrator = SchemaMigrator(schema: schema, suite: name)
        core.schemas.register(.init(version: schema.version) { w, suite, keys in try migrator.migrateIncoming(keys, in: w) }, suite: name)
        try write { w in try migrator.open(in: w) }
        return suite
    }

    /// The schema version this replica holds `suite` at (nil: no schema was ever applied to it).
    ///
    /// ```swift
    /// if let version = try store.schemaVersion(of: "app") { print("app is at version", version) }
    /// ```
    public func schemaVersion(of suite: String) throws -> Int? {
        try Names.validateSuite(suite)
        return try read { r in try r.schemaVersion(suite: suite) }
    }

    /// Every suite with a stored schema version, and its version.
    public func schemaVersions() throws -> [(suite: String, version: Int)] {
        try read { r in
            var out: [(String, Int)] = []
            try r.scanRecords(suite: ReservedSuite.name, keyPrefix: "schema:") { key, row in
                if case .int(let version)? = try? row.record.value() { out.append((String(key.dropFirst("schema:".count)), version)) }
                return true
            }
            return out
        }
    }
}
