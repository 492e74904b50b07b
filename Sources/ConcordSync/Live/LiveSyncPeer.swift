/// A peer a `LiveSync` holds a session with: it syncs on demand, and waits for the peer to announce
/// changes while watching a local wake-up descriptor. The hub is one kind of peer; a streaming
/// session to another replica can be another, driven by the same loop.
///
/// ```swift
/// let live = try LiveSync(store: phone) { try DirectoryLivePeer(store: phone, other: watch) }
/// ```
package protocol LiveSyncPeer: AnyObject {
    /// One exchange: send the local changes the peer lacks, merge the peer's changes.
    func syncOnce() throws -> SyncReport
    /// Blocks until the peer announces a change, `wakeDescriptor` becomes readable, or `timeout`
    /// seconds pass. Throws when the connection broke.
    func waitForAnnouncement(timeout: Double, wakeDescriptor: Int32) throws -> LiveSyncWake
    /// The origin local changes merged from this peer carry (they need no push back).
    var mergeOrigin: ChangeOrigin { get }
}

/// Why a `LiveSyncPeer` stopped waiting.
///
/// <!-- assume: let peer: any LiveSyncPeer = given(), fd: Int32 = 0 -->
/// ```swift
/// if try peer.waitForAnnouncement(timeout: 10, wakeDescriptor: fd) != .ownEcho { _ = try peer.syncOnce() }
/// ```
package enum LiveSyncWake: Sendable, Equatable {
    /// The peer announced changes (another device pushed).
    case announced
    /// The local wake-up descriptor became readable (a local commit, or a stop).
    case local
    /// Nothing happened within the timeout (the loop syncs anyway: a heartbeat).
    case timeout
    /// Only announcements of this device's own pushes arrived: nothing to do.
    case ownEcho
}

/// What a live sync reports as it runs, to the command-line tool (a program reads ``LiveSync/states()``).
package enum LiveSyncEvent: Sendable {
    /// A session with the peer is open (first, or after a reconnection).
    case connected
    /// A round finished: A is this store (with two remotes relayed, the first), B the peer.
    case synced(SyncReport)
    /// The session broke or could not be opened; the loop retries after `retryAfter`.
    case disconnected(error: String, retryAfter: Duration)
}
