import Foundation

/// Where one peer stands with this replica: "is it synced yet?" (``Store/peerStatus()``, `sync-tool status`).
///
/// ```swift
/// for peer in try store.peerStatus() {
///     print(peer.name ?? "\(peer.peer)", peer.isLive ? "live" : "offline", peer.unacknowledged, "to go")
/// }
/// ```
public struct PeerStatus: Hashable, Sendable {
    /// The peer replica (a hub account is a peer too, by its replica id).
    public let peer: ReplicaID
    /// The name the peer gave itself (``Store/setName(_:)-5yr2m``), as this replica has it — for a hub account's
    /// replica, "hub ACCOUNT" — or nil when none arrived.
    public let name: String?
    /// When a sync with it last moved a cursor (a change went either way, or was acknowledged); nil when never.
    public let lastSynced: Date?
    /// This replica's changes the peer has not acknowledged: what a sync would send it now (changes
    /// it sent here, and device-local keys, are not counted).
    public let unacknowledged: Int
    /// Whether a live session with it runs now (a `LiveSync`, a live `sync --watch`, a live `serve`),
    /// on this replica's side.
    public let isLive: Bool
}

extension Store {
    /// Every peer this replica keeps cursors on (every replica or hub it synced with, directly or by
    /// bundle), with its name, its last sync, the changes it has not acknowledged and whether a live
    /// session with it runs now; sorted by replica id.
    ///
    /// ```swift
    /// let waiting = try store.peerStatus().filter { $0.unacknowledged > 0 }
    /// ```
    ///
    /// - Returns: One status per peer, sorted by replica id (empty when the replica never synced).
    /// - Throws: `ConcordError` when the replica cannot be read.
    public func peerStatus() throws -> [PeerStatus] {
        let live = LivePresence.livePeers(in: directory)
        let (cursors, names, hubs) = try read { r in (try r.peerCursors(), try r.replicaNames(), try r.hubPeers()) }
        return try cursors.peers.filter { $0 != replicaID }.sorted().map { peer in
            let updated = cursors.cursors.filter { $0.peer == peer }.map(\.updatedMilliseconds).max() ?? 0
            return PeerStatus(
                peer: peer, name: names[peer] ?? hubs[peer].map { "hub \($0)" },
                lastSynced: updated == 0 ? nil : Date(timeIntervalSince1970: Double(updated) / 1000),
                unacknowledged: try unacknowledged(by: peer, cursors: cursors), isLive: live.contains(peer))
        }
    }

    /// The peers a live session of this replica runs with now.
    ///
    /// ```swift
    /// if try store.livePeers().isEmpty { print("nobody is listening") }
    /// ```
    public func livePeers() -> Set<ReplicaID> { LivePresence.livePeers(in: directory) }

    /// Returns once `peer` — or, when nil, every peer a live session runs with now — has acknowledged
    /// every change this replica committed before the call (its changes that would be sent, so not
    /// device-local keys, nor what the peer sent itself). A sync with the peer — live or not, any
    /// transport — is what moves it; this only waits. With no live peer and `peer` nil, it returns at once.
    ///
    /// ```swift
    /// try await suite.set("dark", forKey: "theme")
    /// try await store.waitUntilAcknowledged(timeout: .seconds(5))   // before quitting
    /// ```
    ///
    /// - Parameters:
    ///   - peer: The peer to wait for, or nil for every live peer.
    ///   - timeout: How long to wait at most.
    /// - Throws: ``ConcordError`` `.notAcknowledged` naming the first peer still behind and how many changes
    ///   it has not acknowledged, when `timeout` passes; `CancellationError` when the task is cancelled.
    public func waitUntilAcknowledged(by peer: ReplicaID? = nil, timeout: Duration) async throws {
        let target = try lastSeq()
        let peers = peer.map { [$0] } ?? livePeers().sorted()
        guard !peers.isEmpty else { return }
        try await AcknowledgementWait(store: self, peers: peers, through: target).run(timeout: timeout)
    }

    /// How many of this replica's changes `peer` has not acknowledged: what a sync would send it now.
    package func unacknowledged(by peer: ReplicaID, cursors: PeerCursorTable) throws -> Int {
        guard cursors.cursors.contains(where: { $0.peer == peer }) else {
            return try DeltaReader.read(from: self, for: peer, alreadyMerged: .none, countOnly: true).counted
        }
        let known = PeerKnowledge(acknowledgedBy: peer, in: cursors, owner: replicaID)
        return try DeltaReader.read(from: self, for: peer, alreadyMerged: known, countOnly: true).counted
    }
}
