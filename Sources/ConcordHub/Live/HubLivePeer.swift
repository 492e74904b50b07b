import Concord

/// The hub as a live-sync peer: a connection that LISTENs on the account's secret channel (every
/// push NOTIFYs it in its transaction, with the account's new last seq, so the announcement arrives
/// once the change is visible), syncs with `HubSynchronizer`, and ignores announcements of changes it
/// has already pulled (its own pushes among them).
///
/// LISTEN is a session's state: through a pooler in transaction mode the session's server
/// connection is handed to other clients between transactions and the announcements go astray. At
/// connect, when the connection's backend is not the server process libpq was told of (a pooler in
/// between), a second connection checks whether it is handed the listening server process — which
/// only transaction pooling does — and every round checks that this connection is still served by it;
/// either finding is ``ConcordError`` `.transactionPooling`. PgBouncer in session mode works.
///
/// ```swift
/// let live = try LiveSync(store: store) { try HubLivePeer(store: store, url: "postgresql://alice@db/settings") }
/// ```
package final class HubLivePeer: LiveSyncPeer {
    /// The device's replica.
    package let store: Store
    /// The hub session that syncs and LISTENs.
    package let hub: Hub
    /// How each round syncs (the suites, the page size).
    package let synchronizer: HubSynchronizer
    /// The server process that LISTENs, when a pooler stands between this connection and the server.
    private let pooledListener: Int64?
    /// The account's last seq the latest round pulled up to: announcements up to it bring nothing new.
    private var pulledUpTo: UInt64 = 0

    /// Connects to the hub at `url` and listens for the account's pushes.
    ///
    /// - Throws: What `Hub.init(_:account:)` throws, ``ConcordError`` `.transactionPooling` through a pooler in
    ///   transaction mode, or `ConcordError` when LISTEN fails.
    package init(
        store: Store, url: String, account: String? = nil, synchronizer: HubSynchronizer = HubSynchronizer()
    ) throws {
        self.store = store
        self.synchronizer = synchronizer
        let hub = try Hub(url, account: account)
        self.hub = hub
        // The channel is "concord_" and hex digits (checked when the account was read): no user data in the statement.
        let listener = try ConcordError.fromPostgres {
            try hub.db.transaction {
                try hub.db.execute("LISTEN \(hub.channel)", operation: "listen for the account's changes")
                return try hub.db.execute("SELECT pg_backend_pid()").int64(0, 0)
            }
        }
        guard listener != Int64(hub.db.backendPID) else {
            pooledListener = nil
            return
        }
        pooledListener = listener
        if Self.anotherClientGets(listener, url: url) { throw ConcordError.transactionPooling(endpoint: hub.endpoint) }
    }

    /// Whether a new connection through the same pooler is served by `backend`, the server process
    /// that holds this session's LISTEN: in session mode it is this session's alone. No answer within
    /// a few seconds (every server connection busy) proves nothing.
    private static func anotherClientGets(_ backend: Int64, url: String) -> Bool {
        guard let probe = try? PostgresConnection(ConnectionString(url), connectTimeout: 3),
            let rows = try? probe.execute("SELECT pg_backend_pid()", within: 3), rows.count == 1
        else { return false }
        return (try? rows.int64(0, 0)) == backend
    }

    /// The hub's replica id for the account: the peer the device keeps its cursors on.
    package var hubReplicaID: ReplicaID { hub.replicaID }

    package var mergeOrigin: ChangeOrigin { .sync(peer: hub.replicaID) }

    package func syncOnce() throws -> SyncReport {
        if let pooledListener {
            let now = try ConcordError.fromPostgres { try hub.db.execute("SELECT pg_backend_pid()").int64(0, 0) }
            guard now == pooledListener else { throw ConcordError.transactionPooling(endpoint: hub.endpoint) }
        }
        let report = try synchronizer.sync(store, hub)
        // Replaced, not raised: within one history the pulled seq only grows, and a hub that went back in
        // time hands out seqs below it again, which must wake this device.
        pulledUpTo = report.bToA.sourceSeqRead
        return report
    }

    package func waitForAnnouncement(timeout: Double, wakeDescriptor: Int32) throws -> LiveSyncWake {
        let (notifications, woken) = try ConcordError.fromPostgres { try hub.db.waitForNotifications(timeout: timeout, wakeDescriptor: wakeDescriptor) }
        if woken { return .local }
        if notifications.isEmpty { return .timeout }
        let pulled = pulledUpTo
        return notifications.contains { UInt64($0.payload).map { $0 > pulled } ?? true } ? .announced : .ownEcho
    }
}
