import CLMDB

#if canImport(Glibc)
    import Glibc
#endif

/// How an environment uses its map: what someone sizing a deployment needs.
///
/// ```swift
/// let s = try env.read { txn in try env.statistics(of: [], in: txn) }
/// print("\(s.pagesUsed) of \(s.mapBytes / s.pageSize) pages used, \(s.freePages) of them free for reuse")
/// ```
package struct EnvironmentStatistics: Sendable, Equatable {
    /// The size of the memory map, in bytes: the data file can grow to it before the map must grow.
    package let mapBytes: Int
    /// The size of a page, in bytes.
    package let pageSize: Int
    /// Pages of the data file in use, free ones included (the last page number + 1).
    package let pagesUsed: Int
    /// Pages on LMDB's free list: once used, now reusable by later writes (unless an old reader still sees them).
    package let freePages: Int
    /// The reader slots the lock file holds.
    package let maxReaders: Int
    /// The id of the last committed transaction.
    package let lastTransactionID: Int
    /// Entries, depth and pages of each named database, and of LMDB's own free list.
    package let databases: [String: DatabaseStatistics]

    /// How many pages the map holds.
    package var mapPages: Int { mapBytes / pageSize }
}

/// One reader slot of the lock file: a process that has read, and what it reads now.
///
/// ```swift
/// let stale = try env.readerSlots().filter { !$0.processIsAlive }
/// ```
package struct ReaderSlot: Sendable, Equatable {
    /// The process that owns the slot.
    package let processID: Int32
    /// The thread that took it (as LMDB prints it).
    package let thread: UInt
    /// The snapshot it is reading, or nil when it is not in a transaction (the slot is kept for reuse).
    package let transactionID: Int?

    /// Whether the owning process still exists (a slot of a dead one is stale: it can pin old pages).
    package var processIsAlive: Bool { kill(processID, 0) == 0 || errno == EPERM }
}

extension Environment {
    /// The free list's database handle (`FREE_DBI`, always 0 in LMDB).
    fileprivate static let freeList = Database(name: "freelist", dbi: 0)

    /// Map size and usage, free pages and per-database statistics as `txn` sees them
    /// (the corresponding C functions are `mdb_env_info`, `mdb_stat` and a cursor over the free list).
    ///
    /// <!-- assume: let records = try env.database(named: "records"), journal = try env.database(named: "journal") -->
    /// ```swift
    /// let s = try env.read { txn in try env.statistics(of: [records, journal], in: txn) }
    /// print(s.databases["records"]?.depth ?? 0)
    /// ```
    ///
    /// - Parameters:
    ///   - databases: The named databases to report (LMDB's free list is always reported).
    ///   - txn: A transaction of this environment (it also keeps the map in place while the meta page is read).
    package func statistics(of databases: [Database], in txn: Transaction) throws -> EnvironmentStatistics {
        try txn.checkOpen()
        let info = C.envInfo(handle)
        var perDatabase: [String: DatabaseStatistics] = [:]
        for db in databases + [Self.freeList] { perDatabase[db.name] = try txn.statistics(db) }
        return EnvironmentStatistics(
            mapBytes: Int(info.me_mapsize), pageSize: pageSize, pagesUsed: Int(info.me_last_pgno) + 1,
            freePages: try txn.freePageCount(), maxReaders: Int(info.me_maxreaders),
            lastTransactionID: Int(info.me_last_txnid), databases: perDatabase)
    }

    /// The reader slots in use, from the lock file (the corresponding C function is `mdb_reader_list`).
    ///
    /// ```swift
    /// for slot in try env.readerSlots() { print(slot.processID, slot.transactionID ?? "idle") }
    /// ```
    package func readerSlots() throws -> [ReaderSlot] {
        let (rc, lines) = C.readerList(handle)
        guard rc >= 0 else { throw LMDBError(code: rc, operation: "mdb_reader_list") }
        // "       pid     thread     txnid" once, then one "%10d %zx %s" line per slot ("-" when idle).
        return lines.compactMap { line in
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\n" })
            guard fields.count == 3, let pid = Int32(fields[0]), let thread = UInt(fields[1], radix: 16) else { return nil }
            return ReaderSlot(processID: pid, thread: thread, transactionID: Int(fields[2]))
        }
    }
}

extension Transaction {
    /// The pages on the free list: the sum of the page counts its entries hold (each value is a list
    /// of page numbers whose first word is their count).
    func freePageCount() throws -> Int {
        try withCursor(Environment.freeList) { cursor in
            var total = 0
            var entry = try cursor.first()
            while let (_, value) = entry {
                guard value.count >= MemoryLayout<UInt>.size else {
                    throw LMDBError(
                        code: LMDBError.corrupted, operation: "reading the free list",
                        message: "an entry of \(value.count) bytes is shorter than its page count")
                }
                total += Int(value.withUnsafeBytes { $0.loadUnaligned(as: UInt.self) })
                entry = try cursor.next()
            }
            return total
        }
    }
}
