/// What `Store.collectTombstones` did: what it removed, what it kept, and why.
///
/// ```swift
/// let report = try store.collectTombstones()
/// print("\(report.collected) of \(report.tombstones) tombstones dropped, \(report.keptForPeers) wait for peers")
/// for (peer, count) in report.heldBackByPeer { print(peer, "has not merged", count, "deletes yet") }
/// ```
public struct TombstoneCollectionReport: Sendable, Equatable {
    /// A tombstone: the key a delete (or reset) removed, or whose value expired, and when.
    public struct Tombstone: Hashable, Sendable {
        /// The suite of the deleted key.
        public let suite: String
        /// The deleted key.
        public let key: String
        /// When it was deleted (its version's time) or its value expired, in milliseconds since 1970.
        public let deletedMilliseconds: UInt64
    }

    /// Tombstones looked at.
    public let tombstones: Int
    /// Tombstones dropped (their record and journal entry).
    public let collected: Int
    /// Kept because the retention period has not passed since the delete.
    public let keptForRetention: Int
    /// Kept because a known peer has not merged past them yet.
    public let keptForPeers: Int
    /// The tombstones dropped, in key order.
    public let removed: [Tombstone]
    /// For each peer holding tombstones back: how many of the tombstones old enough to go it has not
    /// merged yet. A peer that will never sync again holds them until it is forgotten (`forgetPeer`).
    public let heldBackByPeer: [ReplicaID: Int]
    /// When the first tombstone kept for the retention period becomes old enough (milliseconds since
    /// 1970), or nil when none was kept for it.
    public let nextCollectableMilliseconds: UInt64?
}

extension Store {
    /// Thirty days: how long a tombstone is kept at least, so a replica that comes back
    /// after an absence cannot bring a deleted key back within that time.
    public static let defaultTombstoneRetentionMilliseconds: UInt64 = 30 * 24 * 60 * 60 * 1000

    /// Drops tombstones that are no longer needed (see the architecture document, "Tombstones"): a tombstone goes
    /// only when `retentionMilliseconds` have passed since the delete (its version's time) **and**
    /// every known peer has merged past it (its cursor acknowledges the tombstone's journal entry,
    /// or the peer wrote or sent that very tombstone). Never earlier. A value that has expired is
    /// collected the same way, its retention counted from its expiry: it reads as absent on every
    /// replica, as a deletion does.
    ///
    /// A peer that will never return holds tombstones back until it is forgotten (`forgetPeer`).
    ///
    /// ```swift
    /// let report = try store.collectTombstones()   // 30 days, every known peer
    /// print(report.collected, "tombstones dropped")
    /// ```
    ///
    /// - Parameter retentionMilliseconds: How long after a delete its tombstone is kept at least.
    ///   The default is 30 days.
    /// - Returns: Which tombstones were collected, and how many are kept for the retention period or
    ///   for a peer (named) that has not merged them.
    /// - Throws: A storage error; nothing is collected then.
    @discardableResult
    public func collectTombstones(retentionMilliseconds: UInt64 = Store.defaultTombstoneRetentionMilliseconds) throws -> TombstoneCollectionReport {
        try write { w in
            let cursors = try w.peerCursors()
            let peers = cursors.peers
            let now = w.wallClockMilliseconds
            var seen = 0
            var keptForRetention = 0
            var keptForPeers = 0
            var doomed: [TombstoneCollectionReport.Tombstone] = []
            var heldBack: [ReplicaID: Int] = [:]
            var oldestKept: UInt64?
            try w.scanRows(.records) { key, value in
                // A value that has expired reads as absent everywhere: it goes like a tombstone, counted from its expiry.
                let expiry = StoredRow.expiry(value)
                guard StoredRow.isTombstone(value) || expiry.map({ now >= $0 }) == true else { return true }
                guard let (suite, k) = StoreLayout.splitRecordKey(key) else {
                    throw ConcordError.damaged(path: w.path, reason: "a record key that is not suite\\0key")
                }
                let row = try w.rowReader(suite: suite, key: k).row(value)
                seen += 1
                let deletedAt = max(row.record.version.milliseconds, expiry ?? 0)
                guard deletedAt <= now, now - deletedAt >= retentionMilliseconds else {
                    keptForRetention += 1
                    oldestKept = min(oldestKept ?? deletedAt, deletedAt)
                    return true
                }
                var lacking: [ReplicaID] = []
                var source: ChangeSource?
                var sourceRead = false // read only when a cursor does not settle it
                for peer in peers {
                    if cursors.acknowledged(by: peer, suite: suite) >= row.seq { continue }
                    if !sourceRead { (source, sourceRead) = (try w.journalSource(seq: row.seq), true) }
                    if source == .sync(peer: peer) { continue }
                    // The peer's own tombstone, merged here by a sync (a migration here may write one in its name).
                    if row.record.version.replica == peer, case .sync? = source { continue }
                    lacking.append(peer)
                }
                guard lacking.isEmpty else {
                    keptForPeers += 1
                    for peer in lacking { heldBack[peer, default: 0] += 1 }
                    return true
                }
                doomed.append(.init(suite: suite, key: k, deletedMilliseconds: deletedAt))
                return true
            }
            for tombstone in doomed { try w.dropTombstone(suite: tombstone.suite, key: tombstone.key) }
            if !doomed.isEmpty { try w.removeSupersededJournalEntries() }
            return TombstoneCollectionReport(
                tombstones: seen, collected: doomed.count,
                keptForRetention: keptForRetention, keptForPeers: keptForPeers,
                removed: doomed, heldBackByPeer: heldBack,
                nextCollectableMilliseconds: oldestKept.map { deletedAt in
                    let (sum, overflow) = deletedAt.addingReportingOverflow(retentionMilliseconds)
                    return overflow ? .max : sum
                })
        }
    }
}
