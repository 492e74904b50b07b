import Foundation
import LMDB

/// What a replica takes on disk and in memory, for sizing a deployment: the map and how much of it is
/// used, LMDB's free pages, reader slots, the largest suites and the shape of the records tree.
///
/// ```swift
/// let stats = try store.statistics()
/// print("\(stats.map.usedBytes) of \(stats.map.mapBytes) bytes used, \(stats.map.freePages) pages free")
/// for suite in stats.largestSuites { print(suite.name, suite.records, suite.bytes) }
/// ```
package struct StoreStatistics: Sendable, Equatable {
    /// The memory map and the data file.
    package struct Map: Sendable, Equatable {
        /// The size of the memory map, in bytes; it doubles when a write finds it full.
        package let mapBytes: Int
        /// The largest the map may grow to, in bytes.
        package let maxMapBytes: Int
        /// The size of a page, in bytes.
        package let pageSize: Int
        /// Pages in use in the data file, free ones included.
        package let pagesUsed: Int
        /// Pages on LMDB's free list: reusable by later writes, so the file does not grow for them.
        package let freePages: Int
        /// The size of `data.mdb`, in bytes.
        package let fileBytes: Int
        /// The size of `lock.mdb` (the reader table), in bytes.
        package let lockFileBytes: Int
        /// How many pages the map holds.
        package var mapPages: Int { mapBytes / pageSize }
        /// The bytes of the pages in use.
        package var usedBytes: Int { pagesUsed * pageSize }
    }

    /// LMDB's reader slots: one per thread or pooled transaction of every process that has read.
    package struct Readers: Sendable, Equatable {
        /// Slots held by a process.
        package let inUse: Int
        /// Slots reading a snapshot now (an old snapshot keeps the pages it sees from being reused).
        package let reading: Int
        /// The most slots there are; a process that finds them all taken cannot read.
        package let max: Int
        /// Slots of processes that no longer exist, found now.
        package let stale: Int
        /// Slots of dead processes this process freed when it opened the replica.
        package let staleFreedAtOpen: Int
        /// The processes holding slots, and the snapshot (transaction id) each reads, if any.
        package let slots: [Slot]

        /// One reader slot.
        package struct Slot: Sendable, Equatable {
            /// The process holding it.
            package let processID: Int32
            /// The snapshot it reads, or nil when it is idle.
            package let transactionID: Int?
            /// Whether the process still exists.
            package let processIsAlive: Bool
        }
    }

    /// The size of one suite.
    package struct SuiteUsage: Sendable, Equatable {
        /// The suite's name.
        package let name: String
        /// Its records, tombstones included.
        package let records: Int
        /// Its tombstones (deleted keys kept so deletes sync).
        package let tombstones: Int
        /// The bytes of its records' keys and values as stored.
        package let bytes: Int
    }

    /// Entries, tree depth and pages of one of the replica's databases.
    package struct DatabaseUsage: Sendable, Equatable {
        /// The database's name (`records`, `journal`, `meta`, `peers`, `conflicts`, `marks`, or LMDB's free list).
        package let name: String
        /// Its entries.
        package let entries: Int
        /// The depth of its B-tree.
        package let depth: Int
        /// The pages it takes.
        package let pages: Int
    }

    /// The replica's directory.
    package let directory: String
    /// The replica's identity.
    package let replicaID: ReplicaID
    /// The memory map and the data file.
    package let map: Map
    /// The reader slots.
    package let readers: Readers
    /// How many suites hold records.
    package let suites: Int
    /// The largest suites by bytes, largest first (as many as asked for).
    package let largestSuites: [SuiteUsage]
    /// Records of every suite, tombstones included.
    package let records: Int
    /// Tombstones of every suite.
    package let tombstones: Int
    /// Live entries in the change journal: one per record, its latest change.
    package let journalEntries: Int
    /// Entries of the change journal that a later change (or a collected tombstone) superseded: passed
    /// over by every reader, and removed in bulk once there are more of them than records (at least
    /// 4,096), after the commit that made them that many.
    package let supersededJournalEntries: Int
    /// The depth of the records' B-tree: the pages a lookup reads.
    package let recordsDepth: Int
    /// Every database of the replica, and LMDB's free list.
    package let databases: [DatabaseUsage]
}

extension Store {
    /// Map size and usage, free pages, reader slots, the largest suites and the journal's size
    /// (reads every record once, in one snapshot; writers are not blocked).
    ///
    /// ```swift
    /// let stats = try store.statistics(largestSuites: 5)
    /// if stats.readers.stale > 0 { print("a dead process still holds a reader slot") }
    /// ```
    ///
    /// - Parameter largestSuites: How many suites to list, largest first. The default is 10.
    /// - Returns: The figures, all taken from one read snapshot (reader slots just after it).
    /// - Throws: ``ConcordError`` `.damaged` when a record does not decode, or a storage error.
    package func statistics(largestSuites: Int = 10) throws -> StoreStatistics {
        let layout = core.layout
        let named = [layout.records, layout.journal, layout.meta, layout.peers, layout.conflicts, layout.marks]
        let (env, suites, journal) = try core.snapshot { s in
            (try core.env.statistics(of: named, in: s.txn), try Self.suiteUsage(s.txn, layout.records, path: directory), try s.journalCounts())
        }
        let slots = try mapLMDBErrors(path: directory) { try core.env.readerSlots() }
            .map { StoreStatistics.Readers.Slot(processID: $0.processID, transactionID: $0.transactionID, processIsAlive: $0.processIsAlive) }
        let usage = suites.map { StoreStatistics.SuiteUsage(name: $0.key, records: $0.value.records, tombstones: $0.value.tombstones, bytes: $0.value.bytes) }
            .sorted { ($0.bytes, $1.name) > ($1.bytes, $0.name) }
        let databases = env.databases.map { name, s in StoreStatistics.DatabaseUsage(name: name, entries: s.entries, depth: s.depth, pages: s.pages) }
            .sorted { $0.name < $1.name }
        return StoreStatistics(
            directory: directory, replicaID: replicaID,
            map: .init(
                mapBytes: env.mapBytes, maxMapBytes: core.env.options.maxMapSize, pageSize: env.pageSize,
                pagesUsed: env.pagesUsed, freePages: env.freePages,
                fileBytes: Self.fileSize(directory + "/data.mdb"), lockFileBytes: Self.fileSize(directory + "/lock.mdb")),
            readers: .init(
                inUse: slots.count, reading: slots.filter { $0.transactionID != nil }.count, max: env.maxReaders,
                stale: slots.filter { !$0.processIsAlive }.count, staleFreedAtOpen: core.env.staleReadersClearedAtOpen,
                slots: slots),
            suites: usage.count, largestSuites: Array(usage.prefix(max(0, largestSuites))),
            records: usage.reduce(0) { $0 + $1.records }, tombstones: usage.reduce(0) { $0 + $1.tombstones },
            journalEntries: journal.live, supersededJournalEntries: journal.superseded,
            recordsDepth: env.databases[layout.records.name]?.depth ?? 0,
            databases: databases)
    }

    /// Records, tombstones and bytes per suite, from one scan of the records.
    private static func suiteUsage(_ txn: Transaction, _ records: Database, path: String) throws -> [String: (records: Int, tombstones: Int, bytes: Int)] {
        var out: [String: (records: Int, tombstones: Int, bytes: Int)] = [:]
        try txn.scan(records) { key, value in
            guard let (suite, _) = StoreLayout.splitRecordKey(key) else {
                throw ConcordError.damaged(path: path, reason: "a record key that is not suite\\0key")
            }
            out[suite, default: (0, 0, 0)].records += 1
            if StoredRow.isTombstone(value) { out[suite, default: (0, 0, 0)].tombstones += 1 }
            out[suite, default: (0, 0, 0)].bytes += key.count + value.count
            return true
        }
        return out
    }

    private static func fileSize(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
}
