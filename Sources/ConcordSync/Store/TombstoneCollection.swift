import ConcordStore
import LMDB

/// What `Store.collectTombstones` did.
///
/// ```swift
/// let report = try store.collectTombstones()
/// print("\(report.collected) of \(report.tombstones) tombstones dropped, \(report.keptForPeers) wait for peers")
/// ```
public struct TombstoneCollectionReport: Sendable, Equatable {
    /// Tombstones looked at.
    public let tombstones: Int
    /// Tombstones dropped (their record and journal entry).
    public let collected: Int
    /// Kept because the retention period has not passed since the delete.
    public let keptForRetention: Int
    /// Kept because a known peer has not merged past them yet.
    public let keptForPeers: Int
}

extension Store {
    /// Thirty days: how long a tombstone is kept at least, so a replica that comes back
    /// after an absence cannot bring a deleted key back within that time.
    public static let defaultTombstoneRetentionMilliseconds: UInt64 = 30 * 24 * 60 * 60 * 1000

    /// Drops tombstones that are no longer needed (see the architecture document, "Tombstones"): a tombstone goes
    /// only when `retentionMilliseconds` have passed since the delete (its version's time) **and**
    /// every known peer has merged past it (its cursor acknowledges the tombstone's journal entry,
    /// or the peer wrote or sent that very tombstone). Never earlier.
    ///
    /// A peer that will never return holds tombstones back until it is forgotten (`forgetPeer`).
    ///
    /// ```swift
    /// let report = try store.collectTombstones()   // 30 days, every known peer
    /// print(report.collected, "tombstones dropped")
    /// ```
    @discardableResult
    public func collectTombstones(retentionMilliseconds: UInt64 = Store.defaultTombstoneRetentionMilliseconds) throws -> TombstoneCollectionReport {
        try write { w in
            let cursors = try w.peerCursors()
            let peers = cursors.peers
            let now = w.wallClockMilliseconds
            var seen = 0, keptForRetention = 0, keptForPeers = 0
            var doomed: [(suite: String, key: String)] = []
            try w.txn.scan(w.layout.records) { key, value in
                guard StoredRow.isTombstone(value) else { return true }
                guard let (suite, k) = StoreLayout.splitRecordKey(key) else {
                    throw StoreError.damaged(path: w.path, reason: "a record key that is not suite\\0key")
                }
                let row: StoredRow
                do { row = try StoredRow.decode(value) } catch {
                    throw StoreError.damaged(path: w.path, reason: "the record of \(suite)/\(k) does not decode: \(error)")
                }
                seen += 1
                let deletedAt = row.record.version.milliseconds
                guard deletedAt <= now, now - deletedAt >= retentionMilliseconds else { keptForRetention += 1; return true }
                var everyPeerHasIt = true
                var source: ChangeSource?, sourceRead = false   // read only when a cursor does not settle it
                for peer in peers {
                    if row.record.version.replica == peer { continue }
                    if cursors.acknowledged(by: peer, suite: suite) >= row.seq { continue }
                    if !sourceRead { (source, sourceRead) = (try w.journalSource(seq: row.seq), true) }
                    if source == .sync(peer: peer) { continue }
                    everyPeerHasIt = false
                    break
                }
                guard everyPeerHasIt else { keptForPeers += 1; return true }
                doomed.append((suite, k))
                return true
            }
            for (suite, key) in doomed { try w.dropTombstone(suite: suite, key: key) }
            return TombstoneCollectionReport(tombstones: seen, collected: doomed.count,
                                             keptForRetention: keptForRetention, keptForPeers: keptForPeers)
        }
    }
}
