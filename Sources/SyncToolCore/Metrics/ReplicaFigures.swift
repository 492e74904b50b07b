import Concord
import Foundation

/// What this replica knows of one peer, for `sync-tool stat` (text, `--json`, `--prometheus`).
struct PeerFigures: Sendable, Equatable {
    let peer: ReplicaID
    /// This replica's changes the peer has not merged: what `export --since-peer ID` would send now
    /// (the journal after the peer's acknowledged cursors, less the peer's own records echoed back and
    /// device-local keys).
    let pendingChanges: Int
    /// When a cursor on the peer last moved (a sync, an import), in milliseconds since 1970; nil when never.
    let lastSyncMilliseconds: UInt64?
    /// Entries of this replica's conflict log found while merging the peer.
    let conflicts: Int
}

/// Every figure `sync-tool stat` shows, read once: the store's statistics and the figures of its peers.
/// The text, `--json` and `--prometheus` outputs (and `sync --watch --metrics-file`) all render this.
struct ReplicaFigures: Sendable {
    let statistics: StoreStatistics
    let peers: [PeerFigures]
    /// Entries in the conflict log, whichever peer they came from.
    let conflicts: Int

    init(_ store: Store, largestSuites: Int = 10) throws {
        statistics = try store.statistics(largestSuites: largestSuites)
        let cursors = try store.peerCursors()
        let log = try store.conflicts()
        conflicts = log.count
        var byPeer: [ReplicaID: Int] = [:]
        for c in log { byPeer[c.peer, default: 0] += 1 }
        let me = store.replicaID
        peers = try Set(cursors.peers + byPeer.keys).filter { $0 != me }.sorted().map { peer in
            let mine = cursors.cursors.filter { $0.peer == peer }
            let pending = mine.isEmpty ? 0 : try store.unacknowledged(by: peer, cursors: cursors)
            return PeerFigures(
                peer: peer, pendingChanges: pending, lastSyncMilliseconds: mine.map(\.updatedMilliseconds).max().flatMap { $0 == 0 ? nil : $0 },
                conflicts: byPeer[peer] ?? 0)
        }
    }
}
