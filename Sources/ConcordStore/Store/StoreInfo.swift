import Foundation
import LMDB

/// A summary of a replica: identity, format, counts and sizes.
public struct StoreInfo: Sendable, Equatable {
    public let directory: String
    public let replicaID: ReplicaID
    public let formatVersion: UInt32
    public let suites: Int
    public let records: Int
    public let tombstones: Int
    public let journalEntries: Int
    public let lastSeq: UInt64
    public let clock: UInt64
    public let fileBytes: Int
    public let mapBytes: Int
}

extension Store {
    /// Counts and sizes of this replica (reads every record once).
    public func info() throws -> StoreInfo {
        let (records, tombstones, journal, state) = try core.read { txn -> (Int, Int, Int, ReplicaState) in
            var records = 0, tombstones = 0
            try txn.scan(core.layout.records) { _, value in
                records += 1
                if StoredRow.isTombstone(value) { tombstones += 1 }
                return true
            }
            return (records, tombstones, try txn.statistics(core.layout.journal).entries, try ReplicaState.load(txn, core.layout))
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: directory + "/data.mdb")[.size] as? Int) ?? 0
        return StoreInfo(directory: directory, replicaID: replicaID, formatVersion: core.formatVersion,
                         suites: try suiteNames().count, records: records, tombstones: tombstones,
                         journalEntries: journal, lastSeq: state.seq, clock: state.clock,
                         fileBytes: size, mapBytes: core.env.mapSize)
    }
}
