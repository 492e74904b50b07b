import Foundation
import LMDB

/// A summary of a replica: identity, format, counts and sizes (``Store/info()``; a backup returns its
/// own, ``Store/backup(to:compact:onProgress:)``).
///
/// ```swift
/// let info = try store.info()
/// print(info.records, "records,", info.mapUsedBytes, "of", info.mapBytes, "bytes of the map in use")
/// ```
public struct StoreInfo: Sendable, Equatable {
    /// The replica's directory.
    public let directory: String
    /// The replica's identity.
    public let replicaID: ReplicaID
    /// The on-disk format the replica is stored in.
    public let formatVersion: UInt32
    /// How many suites hold at least one record.
    public let suites: Int
    /// How many records are stored, tombstones included.
    public let records: Int
    /// How many of the records are tombstones (deletions kept so they sync).
    public let tombstones: Int
    /// How many live entries the change journal holds: one per record, its latest change (superseded
    /// entries awaiting compaction are not counted).
    public let journalEntries: Int
    /// The seq of the newest journal entry.
    public let lastSeq: UInt64
    /// The replica's hybrid logical clock: milliseconds since 1970 in the high 48 bits, a counter in the low 16.
    public let clock: UInt64
    /// The size of the data file on disk, in bytes.
    public let fileBytes: Int
    /// The size of the memory map, in bytes: the most the data file can grow to before the map is doubled.
    public let mapBytes: Int
    /// The bytes of the map in use: its pages written so far, those free for reuse included.
    public let mapUsedBytes: Int
}

extension Store {
    /// Counts and sizes of this replica (reads every record once).
    public func info() throws -> StoreInfo {
        let (records, tombstones, journal, seq, clock, used) = try core.snapshot { s -> (Int, Int, Int, UInt64, UInt64, Int) in
            var records = 0
            var tombstones = 0
            try s.txn.scan(core.layout.records) { _, value in
                records += 1
                if StoredRow.isTombstone(value) { tombstones += 1 }
                return true
            }
            let env = try core.env.statistics(of: [core.layout.records], in: s.txn)
            return (records, tombstones, try s.journalCounts().live, s.lastSeq, s.clock, env.pagesUsed * env.pageSize)
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: directory + "/data.mdb")[.size] as? Int) ?? 0
        return StoreInfo(
            directory: directory, replicaID: replicaID, formatVersion: core.formatVersion,
            suites: try suiteNames().count, records: records, tombstones: tombstones,
            journalEntries: journal, lastSeq: seq, clock: clock,
            fileBytes: size, mapBytes: core.env.mapSize, mapUsedBytes: used)
    }
}
