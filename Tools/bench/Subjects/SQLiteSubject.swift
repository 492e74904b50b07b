import CSQLite

/// SQLite as a key-value store: `kv(k TEXT PRIMARY KEY, v) WITHOUT ROWID` in WAL mode with
/// `synchronous=FULL`, so every committed row is durable. Statements are prepared once;
/// each read is one autocommit `SELECT`, each durable set one autocommit `INSERT OR REPLACE`,
/// a batch one `BEGIN IMMEDIATE … COMMIT`. A busy timeout lets two writer processes take turns.
final class SQLiteSubject: Subject {
    private let db: OpaquePointer
    private let select: OpaquePointer
    private let upsert: OpaquePointer
    private let countPrefix: OpaquePointer

    init(directory: String) throws {
        var raw: OpaquePointer?
        let path = directory + "/kv.sqlite"
        let rc = sqlite3_open_v2(path, &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db = raw else {
            let message = raw.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(raw)
            throw BenchError("SQLite: cannot open \(path): \(message)")
        }
        self.db = db
        do {
            sqlite3_busy_timeout(db, 30_000)
            try Self.exec(db, "PRAGMA journal_mode=WAL")
            try Self.exec(db, "PRAGMA synchronous=FULL")
            try Self.exec(db, "CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY NOT NULL, v) WITHOUT ROWID")
            select = try Self.prepare(db, "SELECT v FROM kv WHERE k = ?1")
            upsert = try Self.prepare(db, "INSERT OR REPLACE INTO kv (k, v) VALUES (?1, ?2)")
            countPrefix = try Self.prepare(db, "SELECT count(*) FROM kv WHERE substr(k, 1, length(?1)) = ?1")
        } catch {
            sqlite3_close_v2(db)
            throw error
        }
    }

    deinit {
        sqlite3_finalize(select)
        sqlite3_finalize(upsert)
        sqlite3_finalize(countPrefix)
        sqlite3_close_v2(db)
    }

    func readString(_ key: String) throws -> String? {
        try lookup(key) { stmt in
            guard sqlite3_column_type(stmt, 0) == SQLITE_TEXT, let text = sqlite3_column_text(stmt, 0) else { return nil }
            return String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(stmt, 0))), as: UTF8.self)
        }
    }

    func readInt(_ key: String) throws -> Int? {
        try lookup(key) { stmt in
            guard sqlite3_column_type(stmt, 0) == SQLITE_INTEGER else { return nil }
            return Int(sqlite3_column_int64(stmt, 0))
        }
    }

    func setDurably(_ key: String, _ value: BenchValue) throws {
        try put(key, value)
    }

    func setBatch(_ items: ArraySlice<(key: String, value: BenchValue)>) throws {
        try Self.exec(db, "BEGIN IMMEDIATE")
        do {
            for (key, value) in items { try put(key, value) }
            try Self.exec(db, "COMMIT")
        } catch {
            try? Self.exec(db, "ROLLBACK")
            throw error
        }
    }

    func countKeys(prefix: String) throws -> Int {
        defer { sqlite3_reset(countPrefix) }
        try bindText(countPrefix, 1, prefix)
        guard sqlite3_step(countPrefix) == SQLITE_ROW else { throw failure("counting keys") }
        return Int(sqlite3_column_int64(countPrefix, 0))
    }

    // MARK: - C plumbing

    private func lookup<T>(_ key: String, _ column: (OpaquePointer) -> T?) throws -> T? {
        defer { sqlite3_reset(select) }
        try bindText(select, 1, key)
        switch sqlite3_step(select) {
        case SQLITE_ROW: return column(select)
        case SQLITE_DONE: return nil
        default: throw failure("reading \(key)")
        }
    }

    private func put(_ key: String, _ value: BenchValue) throws {
        defer { sqlite3_reset(upsert) }
        try bindText(upsert, 1, key)
        switch value {
        case .string(let s): try bindText(upsert, 2, s)
        case .int(let i): guard sqlite3_bind_int64(upsert, 2, Int64(i)) == SQLITE_OK else { throw failure("binding") }
        }
        guard sqlite3_step(upsert) == SQLITE_DONE else { throw failure("writing \(key)") }
    }

    /// Binds a copy of `text` (SQLITE_TRANSIENT), as any caller holding a Swift String must.
    private func bindText(_ stmt: OpaquePointer, _ index: Int32, _ text: String) throws {
        var text = text
        let rc = text.withUTF8 { bytes in
            sqlite3_bind_text(
                stmt, index, UnsafeRawPointer(bytes.baseAddress)?.assumingMemoryBound(to: CChar.self),
                Int32(bytes.count), Self.transient)
        }
        guard rc == SQLITE_OK else { throw failure("binding") }
    }

    private func failure(_ what: String) -> BenchError {
        BenchError("SQLite: \(what) failed: \(String(cString: sqlite3_errmsg(db)))")
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func exec(_ db: OpaquePointer, _ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
            sqlite3_free(message)
            throw BenchError("SQLite: \(sql) failed: \(text)")
        }
    }

    private static func prepare(_ db: OpaquePointer, _ sql: String) throws -> OpaquePointer {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else {
            throw BenchError("SQLite: cannot prepare \(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
        return stmt
    }
}
