import CLMDB

/// The floor: liblmdb through its C API, no layer in between. One named database
/// `kv`, keys as UTF-8, Strings as UTF-8, Ints as 8 raw bytes. Same settings as Concord's
/// environment (`MDB_NOTLS`, full sync): every commit fsyncs the data and the meta page.
/// Every read begins and aborts its own read-only transaction.
final class RawLMDBSubject: Subject {
    private let env: OpaquePointer
    private var dbi = MDB_dbi()

    init(directory: String) throws {
        var raw: OpaquePointer?
        try Self.check(mdb_env_create(&raw), "mdb_env_create")
        guard let env = raw else { throw BenchError("mdb_env_create returned no environment") }
        self.env = env
        do {
            try Self.check(mdb_env_set_maxdbs(env, 4), "mdb_env_set_maxdbs")
            try Self.check(mdb_env_set_mapsize(env, SubjectKind.mapBytes), "mdb_env_set_mapsize")
            try Self.check(mdb_env_open(env, directory, UInt32(MDB_NOTLS), 0o600), "mdb_env_open \(directory)")
            try openDatabase()
        } catch {
            mdb_env_close(env)
            throw error
        }
    }

    deinit { mdb_env_close(env) }

    /// Opens `kv` in a read-only transaction when it exists (no write lock taken), else creates it.
    private func openDatabase() throws {
        var txn: OpaquePointer?
        try Self.check(mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn), "mdb_txn_begin (read)")
        let rc = mdb_dbi_open(txn, "kv", 0, &dbi)
        if rc == 0 {
            try Self.check(mdb_txn_commit(txn), "mdb_txn_commit (read)")
            return
        }
        mdb_txn_abort(txn)
        guard rc == MDB_NOTFOUND else {
            try Self.check(rc, "mdb_dbi_open kv")
            return
        }
        try Self.check(mdb_txn_begin(env, nil, 0, &txn), "mdb_txn_begin (write)")
        let created = mdb_dbi_open(txn, "kv", UInt32(MDB_CREATE), &dbi)
        guard created == 0 else {
            mdb_txn_abort(txn)
            try Self.check(created, "mdb_dbi_open kv (create)")
            return
        }
        try Self.check(mdb_txn_commit(txn), "mdb_txn_commit")
    }

    func readString(_ key: String) throws -> String? {
        try read(key) { String(decoding: $0, as: UTF8.self) }
    }

    func readInt(_ key: String) throws -> Int? {
        try read(key) { bytes in
            guard bytes.count == 8 else { return nil }
            return Int(Int64(littleEndian: bytes.loadUnaligned(as: Int64.self)))
        }
    }

    func setDurably(_ key: String, _ value: BenchValue) throws {
        try write { txn in try put(txn, key, value) }
    }

    func setBatch(_ items: ArraySlice<(key: String, value: BenchValue)>) throws {
        try write { txn in
            for (key, value) in items { try put(txn, key, value) }
        }
    }

    func countKeys(prefix: String) throws -> Int {
        var txn: OpaquePointer?
        try Self.check(mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn), "mdb_txn_begin (read)")
        defer { mdb_txn_abort(txn) }
        var cursor: OpaquePointer?
        try Self.check(mdb_cursor_open(txn, dbi, &cursor), "mdb_cursor_open")
        defer { mdb_cursor_close(cursor) }
        var k = MDB_val()
        var v = MDB_val()
        var count = 0
        let wanted = Array(prefix.utf8)
        var rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST)
        while rc == 0 {
            let bytes = UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size)
            if bytes.starts(with: wanted) { count += 1 }
            rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)
        }
        guard rc == MDB_NOTFOUND else {
            try Self.check(rc, "mdb_cursor_get")
            return count
        }
        return count
    }

    // MARK: - C plumbing

    private func read<T>(_ key: String, _ convert: (UnsafeRawBufferPointer) -> T?) throws -> T? {
        var txn: OpaquePointer?
        try Self.check(mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn), "mdb_txn_begin (read)")
        defer { mdb_txn_abort(txn) }
        var v = MDB_val()
        let rc = Self.withKey(key) { k in mdb_get(txn, dbi, &k, &v) }
        if rc == MDB_NOTFOUND { return nil }
        try Self.check(rc, "mdb_get")
        return convert(UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
    }

    private func write(_ body: (OpaquePointer?) throws -> Void) throws {
        var txn: OpaquePointer?
        try Self.check(mdb_txn_begin(env, nil, 0, &txn), "mdb_txn_begin (write)")
        do { try body(txn) } catch {
            mdb_txn_abort(txn)
            throw error
        }
        try Self.check(mdb_txn_commit(txn), "mdb_txn_commit")
    }

    private func put(_ txn: OpaquePointer?, _ key: String, _ value: BenchValue) throws {
        let rc: Int32 = Self.withKey(key) { k in
            switch value {
            case .string(var s):
                return s.withUTF8 { bytes in
                    var v = MDB_val(mv_size: bytes.count, mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                    return mdb_put(txn, dbi, &k, &v, 0)
                }
            case .int(let i):
                var little = Int64(i).littleEndian
                return withUnsafeMutableBytes(of: &little) { bytes in
                    var v = MDB_val(mv_size: 8, mv_data: bytes.baseAddress)
                    return mdb_put(txn, dbi, &k, &v, 0)
                }
            }
        }
        try Self.check(rc, "mdb_put")
    }

    private static func withKey<R>(_ key: String, _ body: (inout MDB_val) -> R) -> R {
        var key = key
        return key.withUTF8 { bytes in
            var k = MDB_val(mv_size: bytes.count, mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            return body(&k)
        }
    }

    private static func check(_ rc: Int32, _ operation: String) throws {
        guard rc != 0 else { return }
        throw BenchError("raw LMDB: \(operation) failed: \(String(cString: mdb_strerror(rc))) (code \(rc))")
    }
}
