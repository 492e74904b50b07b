import Concord

/// Live sync with a hub account (the hub peer is ConcordHub's, so this initializer is too).
extension LiveSync {
    /// Keeps `store` in sync with its account on the hub at `url`, woken by the hub's announcement of
    /// every push (PostgreSQL's LISTEN/NOTIFY) as well as by local commits. A pooler in transaction
    /// mode cannot carry the announcements: connecting through one throws ``ConcordError``
    /// `.transactionPooling` (PgBouncer in session mode works).
    ///
    /// ```swift
    /// let live = try LiveSync(store: store, hub: "postgresql://alice@db.example.com/settings")
    /// ```
    ///
    /// - Parameters:
    ///   - store: The device's replica.
    ///   - url: The hub: a `postgresql://` URI or libpq keyword/value pairs (as `Hub.init(_:account:)`).
    ///   - account: The account, when the login role is not it (an administrator's session).
    ///   - synchronizer: How each round syncs (the suites, the page size).
    ///   - heartbeat: Seconds between rounds when nothing happens.
    ///   - maxBackoff: The longest wait between reconnection attempts.
    /// - Throws: `ConcordError` when the store's commit notification cannot be set up (the hub itself is
    ///   reached on the loop's thread, and retried).
    public convenience init(
        store: Store, hub url: String, account: String? = nil, synchronizer: HubSynchronizer = HubSynchronizer(),
        heartbeat: Duration = .seconds(10), maxBackoff: Duration = .seconds(5)
    ) throws {
        try self.init(
            store: store, hub: url, account: account, synchronizer: synchronizer, heartbeat: heartbeat, maxBackoff: maxBackoff, onEvent: { _ in })
    }

    /// `init(store:hub:account:synchronizer:heartbeat:maxBackoff:)`, telling `onEvent` of each
    /// connection, round and disconnection on the loop's thread (the command-line tool's output).
    package convenience init(
        store: Store, hub url: String, account: String? = nil, synchronizer: HubSynchronizer = HubSynchronizer(),
        heartbeat: Duration = .seconds(10), maxBackoff: Duration = .seconds(5), onEvent: @escaping @Sendable (LiveSyncEvent) -> Void
    ) throws {
        try self.init(store: store, heartbeat: heartbeat, maxBackoff: maxBackoff, onEvent: onEvent) {
            try HubLivePeer(store: store, url: url, account: account, synchronizer: synchronizer)
        }
    }
}
