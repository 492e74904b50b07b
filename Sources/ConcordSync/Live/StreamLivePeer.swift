/// A replica reached through a sync session (a remote over ssh) as a live-sync peer: each round is a
/// session round over the open connection, and the serving side announces its own commits.
///
/// <!-- assume: let address = try RemoteAddress.parse("alice@desktop:settings"), options = RemoteOptions() -->
/// ```swift
/// let live = try LiveSync(store: store) {
///     try StreamLivePeer(store: store, connection: try RemoteConnection.open(address, options: options))
/// }
/// ```
package final class StreamLivePeer: LiveSyncPeer {
    private let connection: RemoteConnection
    private let session: SyncSession
    private let store: Store

    package init(store: Store, connection: RemoteConnection, selection: SyncSelection = .all) throws {
        self.connection = connection
        self.store = store
        do { session = try SyncSession(store: store, channel: connection.channel, selection: selection, live: true) } catch {
            connection.close()
            throw error
        }
    }

    deinit { connection.close() }

    package var mergeOrigin: ChangeOrigin { .sync(peer: session.peer.replica) }

    package func syncOnce() throws -> SyncReport {
        try session.round()
    }

    package func waitForAnnouncement(timeout: Double, wakeDescriptor: Int32) throws -> LiveSyncWake {
        try session.waitForAnnouncement(timeout: timeout, wakeDescriptor: wakeDescriptor)
    }
}
