import CLMDB
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An LMDB environment: one directory holding `data.mdb` and `lock.mdb`,
/// shared safely by every thread of this process and by other processes.
///
/// There is one `Environment` per directory per process (`open` returns the
/// existing one). Transactions are scoped to closures: a write commits when its
/// closure returns and aborts when it throws. When the map fills, it grows and
/// the write is retried; when another process grew it, this one adopts the new size.
///
/// ```swift
/// let env = try Environment.open(directory: "/tmp/store")
/// let db = try env.database(named: "records")
/// try env.write { txn in try txn.put(db, Array("k".utf8), Array("v".utf8)) }
/// let v = try env.read { txn in try txn.get(db, Array("k".utf8)) }
/// ```
package final class Environment: @unchecked Sendable {
    /// How much a commit waits for the disk.
    package enum Durability: Sendable, Equatable {
        /// Every commit is on disk when it returns (LMDB's default: data and meta page are fsynced).
        case full
        /// The meta page is not fsynced: a power loss may undo the last commit, never damage the store.
        case noMetaSync
        /// Nothing is fsynced: a power loss may undo recent commits (the OS still writes them out).
        case none
    }

    /// Settings used when this process first opens the directory.
    package struct Options: Sendable {
        /// The initial size of the memory map; it grows (doubling) when full.
        package var mapSize: Int = 64 << 20
        /// The largest the map may grow to.
        package var maxMapSize: Int = 1 << 40
        package var maxDatabases: Int = 16
        package var maxReaders: Int = 126
        package var durability: Durability = .full
        /// Permissions of the files LMDB creates.
        package var fileMode: UInt32 = 0o600
        package init() {}
    }

    /// The directory this environment lives in.
    package let path: String
    package let options: Options
    let handle: OpaquePointer
    private let resizeLock = ResizeLock()
    private let forkGeneration: Int
    /// The databases opened so far, newest first, looked up by name (a handful). Like the registry of
    /// environments and the read pool, a linked list of a non-generic class rather than an array or a
    /// dictionary: a fresh process's first use of a generic collection makes the Swift runtime
    /// instantiate its metadata (the three arrays these were cost nearly a quarter of a store's open).
    private let databases = Mutex<CachedDatabase?>(nil)
    /// One opened database in `databases`.
    private final class CachedDatabase: @unchecked Sendable {
        let database: Database
        let next: CachedDatabase?
        init(_ database: Database, next: CachedDatabase?) { (self.database, self.next) = (database, next) }
    }
    private let readPool = Mutex(ReadPool())
    private let writeCount = Atomic<Int>(0)
    /// The size of a page of the data file.
    let pageSize: Int
    /// Where this process maps the data file; refreshed whenever the map is made again (under the exclusive resize lock).
    private let region = Mutex<MappedRegion?>(nil)
    /// Set when remapping failed after LMDB had released the old map: any further LMDB call that reads
    /// the map would crash, so every transaction is refused instead.
    private let lostMap = Atomic<Bool>(false)
    /// The lock file this process opened, checked before every write commits (see `LockFileGuard`).
    private let lockGuard: LockFileGuard
    /// Set once a write found the lock file replaced: another process may write through another lock
    /// file, so this one refuses every transaction from then on.
    private let lockFileReplaced = Atomic<Bool>(false)
    /// Reader slots of dead processes that opening this environment freed (`mdb_reader_check`).
    package let staleReadersClearedAtOpen: Int
    /// What to run once the environment is closed (`whenClosed`).
    private let closeActions = Mutex<[@Sendable () -> Void]>([])
    /// This environment's entry in the registry, told when the environment has closed.
    private let registration: DirectoryRegistry.Entry

    private init(path: String, options: Options, registration: DirectoryRegistry.Entry) throws {
        var raw: OpaquePointer?
        var rc = C.envCreate(&raw)
        guard rc == 0, let env = raw else { throw LMDBError(code: rc, operation: "mdb_env_create") }
        rc = C.envSetMaxDBs(env, UInt32(options.maxDatabases))
        if rc == 0 { rc = C.envSetMaxReaders(env, UInt32(options.maxReaders)) }
        if rc == 0 { rc = C.envSetMapSize(env, options.mapSize) }
        if rc == 0 { rc = C.envSetAssert(env) }
        var flags = UInt32(MDB_NOTLS)
        switch options.durability {
        case .full: break
        case .noMetaSync: flags |= UInt32(MDB_NOMETASYNC)
        case .none: flags |= UInt32(MDB_NOSYNC)
        }
        var lockFile: LockFileGuard.Opened?
        if rc == 0 {
            do { lockFile = try LockFileGuard.allocate(directory: path, maxReaders: options.maxReaders, mode: options.fileMode) } catch {
                C.envClose(env)
                throw error
            }
            rc = C.envOpen(env, path, flags, mdb_mode_t(options.fileMode))
        }
        guard rc == 0 else {
            C.envClose(env)
            if let lockFile { close(lockFile.descriptor) }
            throw LMDBError(code: rc, operation: "opening the LMDB environment at \(path)")
        }
        let (statRC, envStat) = C.envStat(env)
        let pageSize = statRC == 0 && envStat.ms_psize > 0 ? Int(envStat.ms_psize) : Int(sysconf(Int32(_SC_PAGESIZE)))
        let lockGuard: LockFileGuard
        do {
            try Self.checkDataFileLength(env: env, path: path, pageSize: pageSize)
        } catch {
            C.envClose(env)
            if let lockFile { close(lockFile.descriptor) }
            throw error
        }
        do { lockGuard = try LockFileGuard(directory: path, opened: lockFile) } catch {
            C.envClose(env) // the guard closed the lock file's descriptor
            throw error
        }
        self.lockGuard = lockGuard
        let (checkRC, dead) = C.readerCheck(env)
        self.staleReadersClearedAtOpen = checkRC == 0 ? Int(dead) : 0
        self.pageSize = pageSize
        self.handle = env
        self.path = path
        self.options = options
        self.forkGeneration = registration.generation
        self.registration = registration
        region.withLock { $0 = locateMap() }
    }

    /// Refuses a data file shorter than the pages its newest meta page says are in use: LMDB would
    /// map the missing pages and the first read of one would crash the process (SIGBUS).
    private static func checkDataFileLength(env: OpaquePointer, path: String, pageSize: Int) throws {
        let usedBytes = (Int(C.envInfo(env).me_last_pgno) + 1) * pageSize
        var info = stat()
        guard let fd = C.envFileDescriptor(env), fstat(fd, &info) == 0 else { return }
        guard Int(info.st_size) >= usedBytes else {
            throw LMDBError(
                code: LMDBError.corrupted, operation: "opening \(path)",
                message: "data.mdb is \(info.st_size) bytes, but its pages in use end at \(usedBytes) bytes; the file was truncated")
        }
    }

    /// The bounds a transaction beginning now may copy from (call with the resize lock held).
    private func valueBounds(readOnly: Bool) -> ValueBounds? {
        guard let region = region.withLock({ $0 }) else { return nil }
        if readOnly {
            return ValueBounds(region: region, usedBytes: (Int(C.envInfo(handle).me_last_pgno) + 1) * pageSize, isReadOnly: true)
        }
        var info = stat()
        guard let fd = C.envFileDescriptor(handle), fstat(fd, &info) == 0 else { return nil }
        return ValueBounds(region: region, usedBytes: Int(info.st_size), isReadOnly: false)
    }

    /// Where this process maps the data file, as the bounds checks use it.
    var mappedRegion: MappedRegion? { region.withLock { $0 } }

    /// Where the data file is mapped. A page of the main database is found through a cursor; a page's
    /// header holds its own page number, so the map starts that many pages before it. That costs one
    /// read transaction, where reading `/proc/self/maps` costs most of a store's open; the file is read
    /// only when the main database is still empty or the page does not check out.
    private func locateMap() -> MappedRegion? {
        let info = C.envInfo(handle)
        var raw: OpaquePointer?
        if C.txnBegin(handle, UInt32(MDB_RDONLY), &raw) == 0, let txn = raw {
            defer { C.txnAbort(txn) }
            var cursor: OpaquePointer?
            let mainDatabase: MDB_dbi = 1 // MAIN_DBI: the database of named databases
            if C.cursorOpen(txn, mainDatabase, &cursor) == 0, let cursor {
                defer { C.cursorClose(cursor) }
                var key = MDB_val()
                var value = MDB_val()
                if C.cursorGet(cursor, &key, &value, MDB_FIRST) == 0, let data = key.mv_data {
                    let size = UInt(pageSize)
                    let page = UInt(bitPattern: data) & ~(size - 1)
                    let pageNumber = UInt(bitPattern: Int(truncatingIfNeeded: UnsafeRawPointer(bitPattern: page)!.load(as: UInt64.self)))
                    let used = UInt(info.me_last_pgno) + 1
                    if pageNumber < used, page >= pageNumber * size {
                        let start = page - pageNumber * size
                        if start % size == 0, used * size <= UInt(info.me_mapsize) {
                            return MappedRegion(start: start, length: UInt(info.me_mapsize))
                        }
                    }
                }
            }
        }
        return MappedRegion.find(file: path + "/data.mdb")
    }

    /// Finds the mapping again after `mdb_env_set_mapsize` (call with the resize lock held exclusive).
    /// When it failed and the data file is no longer mapped, LMDB lost its map: refuse every later transaction.
    private func remapped(succeeded: Bool) {
        let found = locateMap()
        region.withLock { $0 = found }
        if !succeeded && found == nil { lostMap.store(true, ordering: .releasing) }
    }

    /// Why this process may no longer use the environment (its map was lost, or its lock file
    /// replaced), or nil.
    private func refusal() -> LMDBError? {
        if lockFileReplaced.load(ordering: .acquiring) { return lockGuard.replacedError }
        guard lostMap.load(ordering: .acquiring) else { return nil }
        return LMDBError(
            code: ENOMEM, operation: "using the store at \(path)",
            message:
                "remapping the data file failed after LMDB had released the old map, so this process can no longer read it; restart the process (the data on disk is intact)"
        )
    }

    /// Checks that `bytes` of address space can be mapped now; returns the errno when they cannot.
    private static func reserveAddressSpace(_ bytes: Int) -> Int32? {
        guard let probe = mmap(nil, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0),
            probe != UnsafeMutableRawPointer(bitPattern: -1)
        else { return errno }
        munmap(probe, bytes)
        return nil
    }

    deinit {
        // In a forked child the handle belongs to the parent: leave it alone.
        guard ForkGuard.generation == forkGeneration else { return }
        readPool.withLock { pool in
            while let txn = pool.pop() { C.txnAbort(txn) }
        }
        // Stop sharing the data file first: a process holding it always holds LMDB's lock on the lock
        // file. The guard's own descriptor of the lock file closes after LMDB's.
        lockGuard.releaseDataFile()
        C.envClose(handle)
        lockGuard.closeLockFile()
        // Only now may this process open the directory again (see `open`).
        registration.released.store(true, ordering: .releasing)
        for action in closeActions.withLock({ $0 }) { action() }
    }

    /// Runs `action` right after this environment is closed (when its last reference goes), for
    /// whatever must wait until no process-local handle refers to the files, such as removing them.
    /// Never runs in a child forked after the environment was opened. An open of the directory
    /// meanwhile opens it anew (it does not wait for `action`).
    ///
    /// <!-- assume: let directory = "/tmp/store" -->
    /// ```swift
    /// env.whenClosed { try? FileManager.default.removeItem(atPath: directory) }
    /// ```
    package func whenClosed(_ action: @escaping @Sendable () -> Void) {
        closeActions.withLock { $0.append(action) }
    }

    // MARK: - One environment per directory per process

    /// The directories opened in this process. An entry stays after its environment's last reference
    /// went until the environment has closed every descriptor of the files (its deinitializer sets
    /// `released`): a weak reference reads nil as soon as the deinitializer starts, and until it has
    /// finished, a second environment of the directory would be a second LMDB environment of one process.
    private static let registry = DirectoryRegistry(keepsEntriesUntilReleased: true)

    /// Opens the environment in `directory` (which must exist), or returns the one this process already has open.
    /// `options` apply only when this process opens the directory for the first time.
    ///
    /// When the last reference to this process's environment of the directory went on another thread
    /// and that thread is still closing it, this waits until it has closed (at most 10 seconds; it
    /// takes microseconds): LMDB allows one environment of a directory per process, and the old one's
    /// close would drop the new one's locks. `resolved` says `directory` is its canonical path already
    /// (`realpath`'s), so it is not resolved again.
    package static func open(directory: String, options: Options = Options(), resolved: Bool = false) throws -> Environment {
        let key = resolved ? directory : canonicalPath(directory)
        var waits = 0
        while true {
            var closing: DirectoryRegistry.Entry?
            let opened = try registry.withEntries { entries -> Environment? in
                if let current = entries.entry(key, generation: ForkGuard.generation) {
                    if let env = current.object as? Environment { return env }
                    if !current.released.load(ordering: .acquiring) {
                        closing = current
                        return nil
                    }
                }
                ForkGuard.install()
                return try entries.register(path: key, generation: ForkGuard.generation) { registration in
                    try Environment(path: key, options: options, registration: registration)
                }
            }
            if let opened { return opened }
            if let closing { try waitUntilClosed(closing, waits: &waits) }
        }
    }

    /// Waits a moment for the environment of `entry`, which another thread is closing; throws once
    /// `waits` (counted across calls) says it has taken 10 seconds.
    private static func waitUntilClosed(_ entry: DirectoryRegistry.Entry, waits: inout Int) throws {
        while !entry.released.load(ordering: .acquiring) {
            waits += 1
            if waits <= 100 {
                sched_yield()
            } else if waits <= 100 + 10_000 {
                usleep(1000)
            } else {
                throw LMDBError(
                    code: EBUSY, operation: "opening \(entry.path)",
                    message: "this process's previous environment of it has been closing for 10 seconds; try again")
            }
        }
    }

    /// Throws when any process, this one included, has the environment in `directory` open (for
    /// work on its files that no process may see half done, such as rebuilding a damaged store).
    package static func checkUnused(directory: String) throws {
        let key = canonicalPath(directory)
        var waits = 0
        while true {
            var closing: DirectoryRegistry.Entry?
            let here = registry.withEntries { entries -> Bool in
                guard let current = entries.entry(key, generation: ForkGuard.generation) else { return false }
                if current.object != nil { return true }
                if !current.released.load(ordering: .acquiring) { closing = current }
                return false
            }
            if here {
                throw LMDBError(
                    code: EBUSY, operation: "taking the store at \(key) out of use",
                    message: "this process has it open; release every Store, Suite and wrapper of it first")
            }
            guard let closing else { break }
            try waitUntilClosed(closing, waits: &waits)
        }
        try LockFileGuard.checkUnused(directory: key)
    }

    private static func canonicalPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    // MARK: - Databases

    /// The named database, created if missing. Handles are cached for the environment's life.
    package func database(named name: String) throws -> Database {
        try checkFork()
        return try databases.withLock { cache in
            if let found = Self.cached(name, in: cache) { return found }
            try open([name], into: &cache)
            return Self.cached(name, in: cache)!
        }
    }

    /// The named databases, created if missing: afterwards `database(named:)` returns each from the
    /// cache. When they all exist they are opened in one read-only transaction, so opening a store
    /// neither writes nor waits for another process's writer; otherwise they are created in one write
    /// transaction.
    package func openDatabases(named names: [String]) throws {
        try checkFork()
        try databases.withLock { cache in
            let missing = names.filter { Self.cached($0, in: cache) == nil }
            if !missing.isEmpty { try open(missing, into: &cache) }
        }
    }

    /// Opens the named databases when every one of them exists (one read-only transaction; nothing is
    /// created), so `database(named:)` returns each from the cache; false, opening none, when one is missing.
    package func openDatabasesIfPresent(named names: [String]) throws -> Bool {
        try checkFork()
        return try databases.withLock { cache in
            let missing = names.filter { Self.cached($0, in: cache) == nil }
            if missing.isEmpty { return true }
            guard let opened = try openExistingDatabases(missing, onto: cache) else { return false }
            cache = opened
            return true
        }
    }

    private static func cached(_ name: String, in cache: CachedDatabase?) -> Database? {
        var entry = cache
        while let current = entry {
            if current.database.name == name { return current.database }
            entry = current.next
        }
        return nil
    }

    /// Opens `names` (none of them cached) and puts them in front of `cache` (call with `databases` locked).
    private func open(_ names: [String], into cache: inout CachedDatabase?) throws {
        let head = cache
        cache =
            try openExistingDatabases(names, onto: head)
            ?? write { txn in
                var opened = head
                for name in names {
                    var dbi = MDB_dbi()
                    let rc = C.dbiOpen(txn.handle, name, UInt32(MDB_CREATE), &dbi)
                    guard rc == 0 else { throw LMDBError(code: rc, operation: "mdb_dbi_open \(name)") }
                    opened = CachedDatabase(Database(name: name, dbi: dbi), next: opened)
                }
                return opened
            }
    }

    /// Opens `names` in a read-only transaction that is committed (so the handles stay open) and returns
    /// them in front of `head`; `nil` when one of them does not exist yet (or the map must be adopted first).
    private func openExistingDatabases(_ names: [String], onto head: CachedDatabase?) throws -> CachedDatabase? {
        resizeLock.lockShared()
        defer { resizeLock.unlock() }
        if let error = refusal() { throw error }
        var raw: OpaquePointer?
        let rc = C.txnBegin(handle, UInt32(MDB_RDONLY), &raw)
        if rc == MDB_MAP_RESIZED { return nil }
        guard rc == 0, let raw else { throw LMDBError(code: rc, operation: "mdb_txn_begin (read, opening databases)") }
        var opened = head
        for name in names {
            var dbi = MDB_dbi()
            let rc = C.dbiOpen(raw, name, 0, &dbi)
            if rc == MDB_NOTFOUND {
                C.txnAbort(raw)
                return nil
            }
            guard rc == 0 else {
                C.txnAbort(raw)
                throw LMDBError(code: rc, operation: "mdb_dbi_open \(name)")
            }
            opened = CachedDatabase(Database(name: name, dbi: dbi), next: opened)
        }
        let commit = C.txnCommitReadOnly(raw)
        guard commit == 0 else { throw LMDBError(code: commit, operation: "mdb_txn_commit (read, opening databases)") }
        return opened
    }

    // MARK: - Transactions

    /// Runs `body` in a read-only snapshot. Do not start another transaction inside `body`.
    package func read<R>(_ body: (Transaction) throws -> R) throws -> R {
        try checkFork()
        while true {
            resizeLock.lockShared()
            if let error = refusal() {
                resizeLock.unlock()
                throw error
            }
            let (rc, raw) = beginRead()
            if rc == MDB_MAP_RESIZED {
                resizeLock.unlock()
                try adoptGrownMap()
                continue
            }
            guard rc == 0, let raw else {
                resizeLock.unlock()
                throw LMDBError(code: rc, operation: "mdb_txn_begin (read)")
            }
            let txn = Transaction(handle: raw, isReadOnly: true, bounds: valueBounds(readOnly: true))
            defer {
                txn.isOpen = false
                endRead(raw)
                resizeLock.unlock()
            }
            return try body(txn)
        }
    }

    /// Runs `body` in a write transaction: committed when it returns, aborted when it throws.
    /// The closure may run more than once (after the map grew), so it must only act through `txn`.
    /// Do not start another transaction inside `body`.
    package func write<R>(_ body: (Transaction) throws -> R) throws -> R {
        try checkFork()
        while true {
            resizeLock.lockShared()
            if let error = refusal() {
                resizeLock.unlock()
                throw error
            }
            var raw: OpaquePointer?
            let rc = C.txnBegin(handle, 0, &raw)
            if rc == MDB_MAP_RESIZED {
                resizeLock.unlock()
                try adoptGrownMap()
                continue
            }
            guard rc == 0, let raw else {
                resizeLock.unlock()
                throw LMDBError(code: rc, operation: "mdb_txn_begin (write)")
            }
            if let replaced = lockGuard.replacement() {
                C.txnAbort(raw)
                resizeLock.unlock()
                throw stopUsing(replaced)
            }
            let txn = Transaction(handle: raw, isReadOnly: false, bounds: valueBounds(readOnly: false))
            let result: R
            do {
                result = try body(txn)
            } catch let error as LMDBError where error.code == MDB_MAP_FULL {
                txn.end()
                C.txnAbort(raw)
                resizeLock.unlock()
                try grow()
                continue
            } catch {
                txn.end()
                C.txnAbort(raw)
                resizeLock.unlock()
                throw error
            }
            txn.end()
            if let replaced = lockGuard.replacement() {
                C.txnAbort(raw)
                resizeLock.unlock()
                throw stopUsing(replaced)
            }
            let commit = C.txnCommit(raw)
            resizeLock.unlock()
            if commit == MDB_MAP_FULL {
                try grow()
                continue
            }
            guard commit == 0 else { throw commitFailure(commit) }
            if txn.deleted { coverUsedPages() }
            if writeCount.add(1, ordering: .relaxed).newValue % 1024 == 0 { _ = try? clearStaleReaders() }
            return result
        }
    }

    /// Extends data.mdb to the end of the pages in use when a commit left it shorter. LMDB does not
    /// write a page that a transaction allocated and freed again (a loose page), so after a commit that
    /// deleted entries the newest meta page may count free pages past the file's end, which the length
    /// check of the next open (`checkDataFileLength`) would take for a truncated file. posix_fallocate
    /// only ever extends the file, so a writer of another process that extended it further meanwhile
    /// loses nothing; the new length is made durable like the commit.
    private func coverUsedPages() {
        let usedBytes = (Int(C.envInfo(handle).me_last_pgno) + 1) * pageSize
        var info = stat()
        guard let fd = C.envFileDescriptor(handle), fstat(fd, &info) == 0, Int(info.st_size) < usedBytes else { return }
        if posix_fallocate(fd, 0, off_t(usedBytes)) == 0 { _ = fsync(fd) }
    }

    /// Refuses every later transaction of this process, because the lock file at the path is no longer
    /// the one it holds, and lets go of the data file once no transaction of it runs (so a process that
    /// opens the directory anew need not wait for this one to end). Returns `error`.
    private func stopUsing(_ error: LMDBError) -> LMDBError {
        lockFileReplaced.store(true, ordering: .releasing)
        resizeLock.lockExclusive()
        lockGuard.releaseDataFile()
        resizeLock.unlock()
        return error
    }

    /// The error of a commit LMDB refused. A write cut short by a full disk comes back as `EIO`: that
    /// one says the disk is full.
    private func commitFailure(_ code: Int32) -> LMDBError {
        guard code == EIO || code == ENOSPC, FileSystemSpace.isFull(at: path) else { return LMDBError(code: code, operation: "mdb_txn_commit") }
        return LMDBError(
            code: ENOSPC, operation: "mdb_txn_commit",
            message:
                "No space left on device: \(FileSystemSpace.describe(path)) is full, so nothing of this write was committed; free some space and write again")
    }

    private func beginRead() -> (Int32, OpaquePointer?) {
        if let pooled = readPool.withLock({ $0.pop() }) {
            let rc = C.txnRenew(pooled)
            if rc == 0 { return (0, pooled) }
            C.txnAbort(pooled)
            if rc == MDB_MAP_RESIZED { return (rc, nil) }
        }
        var raw: OpaquePointer?
        let rc = C.txnBegin(handle, UInt32(MDB_RDONLY), &raw)
        return (rc, raw)
    }

    private func endRead(_ txn: OpaquePointer) {
        C.txnReset(txn)
        let kept = readPool.withLock { $0.push(txn) }
        if !kept { C.txnAbort(txn) }
    }

    // MARK: - Map size

    /// The current size of this process's memory map, in bytes.
    package var mapSize: Int { readingMetaPages { Int(C.envInfo(handle).me_mapsize) } }

    /// The id of the last committed transaction, read from shared memory without a transaction.
    /// Changes whenever any process commits: a cheap "did anything change?" check.
    package var lastCommittedTransactionID: Int { readingMetaPages { Int(C.envInfo(handle).me_last_txnid) } }

    /// Reads the meta pages (inside the map) while no other thread can remap it.
    private func readingMetaPages(_ read: () -> Int) -> Int {
        resizeLock.lockShared()
        defer { resizeLock.unlock() }
        return lostMap.load(ordering: .acquiring) ? 0 : read()
    }

    /// Grows the map (doubling), because a write found it full.
    func grow() throws {
        resizeLock.lockExclusive()
        defer { resizeLock.unlock() }
        if let error = refusal() { throw error }
        let current = Int(C.envInfo(handle).me_mapsize)
        let target = min(current * 2, options.maxMapSize)
        guard target > current else {
            throw LMDBError(code: MDB_MAP_FULL, operation: "growing the map beyond its maximum of \(options.maxMapSize) bytes")
        }
        // LMDB unmaps the old map before it maps the new one, and a failed mmap leaves it with no map at
        // all. Make sure the address space for the larger map exists first, so running short of it is an
        // error to this write and the store stays readable.
        if let code = Self.reserveAddressSpace(target) {
            throw LMDBError(code: code, operation: "growing the map to \(target) bytes (reserving the address space)")
        }
        let rc = C.envSetMapSize(handle, target)
        remapped(succeeded: rc == 0)
        guard rc == 0 else { throw LMDBError(code: rc, operation: "growing the map to \(target) bytes (mdb_env_set_mapsize)") }
    }

    /// Adopts the larger map another process committed (`MDB_MAP_RESIZED`).
    func adoptGrownMap() throws {
        resizeLock.lockExclusive()
        defer { resizeLock.unlock() }
        if let error = refusal() { throw error }
        let rc = C.envSetMapSize(handle, 0)
        remapped(succeeded: rc == 0)
        guard rc == 0 else { throw LMDBError(code: rc, operation: "adopting the grown map (mdb_env_set_mapsize)") }
    }

    // MARK: - Maintenance

    /// Frees the reader slots of processes that died while reading (`mdb_reader_check`); returns how many.
    @discardableResult
    package func clearStaleReaders() throws -> Int {
        let (rc, dead) = C.readerCheck(handle)
        guard rc == 0 else { throw LMDBError(code: rc, operation: "mdb_reader_check") }
        return Int(dead)
    }

    /// Flushes buffered commits to disk (useful with `.noMetaSync` or `.none` durability).
    package func sync() throws {
        let rc = C.envSync(handle, true)
        guard rc == 0 else { throw LMDBError(code: rc, operation: "mdb_env_sync") }
    }

    /// The largest key LMDB accepts (511 bytes by default).
    package var maxKeySize: Int { Int(C.envMaxKeySize(handle)) }

    /// False in a child process forked after this environment was opened: it must open its own.
    package var isUsableInThisProcess: Bool { ForkGuard.generation == forkGeneration }

    private func checkFork() throws {
        guard ForkGuard.generation == forkGeneration else {
            throw LMDBError(code: invalidArgumentCode, operation: "using an LMDB environment opened before fork() (open it again in the child)")
        }
    }
}
