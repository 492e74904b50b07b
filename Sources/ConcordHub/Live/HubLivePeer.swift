import ConcordStore
import ConcordSync

/// The hub as a live-sync peer: a connection that LISTENs on the account's channel (every push
/// NOTIFYs it in its transaction, so the announcement arrives once the change is visible), syncs
/// with `HubSynchronizer`, and ignores the announcements of this device's own pushes.
///
/// ```swift
/// let live = try LiveSync(store: store) { try HubLivePeer(store: store, url: "postgresql://alice@db/settings") }
/// ```
public final class HubLivePeer: LiveSyncPeer {
    /// The device's replica.
    public let store: Store
    /// The hub session that syncs and LISTENs.
    public let hub: Hub
    /// How each round syncs (the suites, the page size).
    public let synchronizer: HubSynchronizer
    /// Called with every round's full report (the loop's events carry a summary).
    private let onReport: (HubSyncReport) -> Void

    /// Connects to the hub at `url` and listens for the account's pushes.
    ///
    /// - Throws: What `Hub.init(_:account:)` throws, or `HubError` when LISTEN fails.
    public init(
        store: Store, url: String, account: String? = nil, synchronizer: HubSynchronizer = HubSynchronizer(),
        onReport: @escaping (HubSyncReport) -> Void = { _ in }
    ) throws {
        self.store = store
        self.synchronizer = synchronizer
        self.onReport = onReport
        hub = try Hub(url, account: account)
        // The channel name is "concord_" and the hub's replica id in hex: no user data in the statement.
        try HubError.wrapping { try hub.db.execute("LISTEN \(hub.channel)", operation: "listen for the account's changes") }
    }

    /// The hub's replica id for the account: the peer the device keeps its cursors on.
    public var hubReplicaID: ReplicaID { hub.replicaID }

    public var mergeOrigin: ChangeOrigin { .sync(peer: hub.replicaID) }

    public func syncOnce() throws -> LiveSyncRound {
        let report = try synchronizer.sync(store, hub)
        onReport(report)
        var round = LiveSyncRound(pushed: report.hubRowsChanged, pulled: report.pulled.recordsChanged, conflicts: report.pulled.conflicts)
        round.historyResync = report.historyResync
        round.replicas = [store.replicaID, hub.replicaID]
        round.entriesSent = report.pushed + report.pulled.entries - report.pulled.alreadyMerged
        return round
    }

    public func waitForAnnouncement(timeout: Double, wakeDescriptor: Int32) throws -> LiveSyncWake {
        let (notifications, woken) = try HubError.wrapping { try hub.db.waitForNotifications(timeout: timeout, wakeDescriptor: wakeDescriptor) }
        if woken { return .local }
        if notifications.isEmpty { return .timeout }
        let me = store.replicaID.description
        return notifications.contains { !$0.payload.hasSuffix(" " + me) } ? .announced : .ownEcho
    }
}
