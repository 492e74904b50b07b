import CLMDB

/// Every call into liblmdb goes through this file, so faults can be injected in one place
/// (see `FaultInjection`). Each function wraps the C function of the same name.
enum C {
    typealias Env = OpaquePointer
    typealias Txn = OpaquePointer

    static func envCreate(_ env: inout Env?) -> Int32 { mdb_env_create(&env) }
    static func envSetMaxDBs(_ env: Env, _ n: UInt32) -> Int32 { mdb_env_set_maxdbs(env, n) }
    static func envSetMaxReaders(_ env: Env, _ n: UInt32) -> Int32 { mdb_env_set_maxreaders(env, n) }
    static func envSetMapSize(_ env: Env, _ size: Int) -> Int32 {
        if let code = FaultInjection.take(.setMapSize) { return code }
        return mdb_env_set_mapsize(env, size)
    }
    static func envOpen(_ env: Env, _ path: String, _ flags: UInt32, _ mode: mdb_mode_t) -> Int32 {
        if let code = FaultInjection.take(.openEnvironment) { return code }
        return mdb_env_open(env, path, flags, mode)
    }
    static func envClose(_ env: Env) { mdb_env_close(env) }
    /// Makes a failed LMDB assertion (a damaged page) report the directory before LMDB aborts (`DamageAssertion`).
    static func envSetAssert(_ env: Env) -> Int32 { mdb_env_set_assert(env, assertionFailed) }
    static func envInfo(_ env: Env) -> MDB_envinfo {
        var info = MDB_envinfo()
        _ = mdb_env_info(env, &info)
        return info
    }
    static func envStat(_ env: Env) -> (Int32, MDB_stat) {
        var st = MDB_stat()
        let rc = mdb_env_stat(env, &st)
        return (rc, st)
    }
    static func envFileDescriptor(_ env: Env) -> Int32? {
        var fd: mdb_filehandle_t = -1
        return mdb_env_get_fd(env, &fd) == 0 ? fd : nil
    }
    static func envMaxKeySize(_ env: Env) -> Int32 { mdb_env_get_maxkeysize(env) }
    static func envSync(_ env: Env, _ force: Bool) -> Int32 { mdb_env_sync(env, force ? 1 : 0) }
    static func readerCheck(_ env: Env) -> (Int32, Int32) {
        var dead: Int32 = 0
        let rc = mdb_reader_check(env, &dead)
        return (rc, dead)
    }
    /// Lists the reader slots in use, one line of text per slot (`mdb_reader_list` reports them as text).
    static func readerList(_ env: Env) -> (Int32, [String]) {
        final class Lines { var all: [String] = [] }
        let lines = Lines()
        let rc = withExtendedLifetime(lines) {
            mdb_reader_list(
                env,
                { message, context in
                    guard let message, let context else { return -1 }
                    Unmanaged<Lines>.fromOpaque(context).takeUnretainedValue().all.append(String(cString: message))
                    return 0
                }, Unmanaged.passUnretained(lines).toOpaque())
        }
        return (rc, lines.all)
    }
    static func envCopy(_ env: Env, toFile fd: Int32, _ flags: UInt32) -> Int32 {
        if let code = FaultInjection.take(.copyEnvironment) { return code }
        return mdb_env_copyfd2(env, fd, flags)
    }

    static func txnBegin(_ env: Env, _ flags: UInt32, _ txn: inout Txn?) -> Int32 {
        if flags & UInt32(MDB_RDONLY) == 0, let code = FaultInjection.take(.beginTransaction) { return code }
        return mdb_txn_begin(env, nil, flags, &txn)
    }
    static func txnCommit(_ txn: Txn) -> Int32 {
        if let code = FaultInjection.take(.commit) {
            mdb_txn_abort(txn) // a failed commit frees the transaction, as mdb_txn_commit does
            return code
        }
        return mdb_txn_commit(txn)
    }
    static func txnID(_ txn: Txn) -> UInt64 { UInt64(mdb_txn_id(txn)) }
    /// Ends a read-only transaction keeping the database handles it opened (no fault injection: nothing is written).
    static func txnCommitReadOnly(_ txn: Txn) -> Int32 { mdb_txn_commit(txn) }
    static func txnAbort(_ txn: Txn) { mdb_txn_abort(txn) }
    static func txnReset(_ txn: Txn) { mdb_txn_reset(txn) }
    static func txnRenew(_ txn: Txn) -> Int32 { mdb_txn_renew(txn) }

    static func dbiOpen(_ txn: Txn, _ name: String, _ flags: UInt32, _ dbi: inout MDB_dbi) -> Int32 {
        mdb_dbi_open(txn, name, flags, &dbi)
    }
    static func stat(_ txn: Txn, _ dbi: MDB_dbi) -> (Int32, MDB_stat) {
        var st = MDB_stat()
        let rc = mdb_stat(txn, dbi, &st)
        return (rc, st)
    }
    static func drop(_ txn: Txn, _ dbi: MDB_dbi) -> Int32 { mdb_drop(txn, dbi, 0) }

    static func get(_ txn: Txn, _ dbi: MDB_dbi, _ key: inout MDB_val, _ value: inout MDB_val) -> Int32 {
        mdb_get(txn, dbi, &key, &value)
    }

    static func cursorOpen(_ txn: Txn, _ dbi: MDB_dbi, _ cursor: inout OpaquePointer?) -> Int32 {
        mdb_cursor_open(txn, dbi, &cursor)
    }
    static func cursorClose(_ cursor: OpaquePointer) { mdb_cursor_close(cursor) }
    static func cursorGet(_ cursor: OpaquePointer, _ key: inout MDB_val, _ value: inout MDB_val, _ op: MDB_cursor_op) -> Int32 {
        mdb_cursor_get(cursor, &key, &value, op)
    }
    static func cursorDel(_ cursor: OpaquePointer) -> Int32 { mdb_cursor_del(cursor, 0) }
    /// Every put of a write transaction goes through its cursor on the database (`Transaction.writeCursor`).
    static func cursorPut(_ cursor: OpaquePointer, _ key: inout MDB_val, _ value: inout MDB_val, _ flags: UInt32) -> Int32 {
        if let code = FaultInjection.take(.put) { return code }
        return mdb_cursor_put(cursor, &key, &value, flags)
    }
}

/// LMDB's assertion callback (`MDB_assert_func`): names the environment's directory, then LMDB aborts.
private func assertionFailed(_ env: OpaquePointer?, _ message: UnsafePointer<CChar>?) {
    var path: UnsafePointer<CChar>?
    if let env { _ = mdb_env_get_path(env, &path) }
    DamageAssertion.report(
        directory: path.map { String(cString: $0) } ?? "(unknown)",
        message: message.map { String(cString: $0) } ?? "an assertion failed")
}
