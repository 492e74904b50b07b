/// Two remote replicas kept in sync through this process as a live-sync "peer": each round is a
/// relay round (`SyncRelay`), and either server's own commits, which it announces, wake the loop.
/// A round's `aToB` is A's changes as B acknowledged merging them, `bToA` B's as A did; conflicts are
/// found on the far sides (each is in that replica's conflict log) and only counted (`remoteConflicts`).
///
/// <!-- assume:
/// let first = try RemoteAddress.parse("alice@desktop:settings"), second = try RemoteAddress.parse("alice@server:settings")
/// let options = RemoteOptions()
/// -->
/// ```swift
/// let live = LiveSync(heartbeat: 10) {
///     try RelayLivePeer(a: try RemoteConnection.open(first, options: options), b: try RemoteConnection.open(second, options: options))
/// }
/// ```
package final class RelayLivePeer: LiveSyncPeer {
    private let a: RemoteConnection
    private let b: RemoteConnection
    private let relay: SyncRelay
    package init(a: RemoteConnection, b: RemoteConnection, selection: SyncSelection = .all) throws {
        (self.a, self.b) = (a, b)
        do { relay = try SyncRelay(a: a.channel, b: b.channel, selection: selection, live: true) } catch {
            a.close()
            b.close()
            throw error
        }
    }

    deinit {
        a.close()
        b.close()
    }

    package var mergeOrigin: ChangeOrigin { .sync(peer: relay.helloA.replica) }

    package func syncOnce() throws -> SyncReport {
        try relay.round()
    }

    package func waitForAnnouncement(timeout: Double, wakeDescriptor: Int32) throws -> LiveSyncWake {
        try relay.waitForAnnouncement(timeout: timeout, wakeDescriptor: wakeDescriptor)
    }
}
