/// A peer a `LiveSync` holds a session with: it syncs on demand, and waits for the peer to announce
/// changes while watching a local wake-up descriptor. The hub is one kind of peer; a streaming
/// session to another replica can be another, driven by the same loop.
///
/// ```swift
/// let live = try LiveSync(store: phone) { try DirectoryLivePeer(store: phone, other: watch) }
/// ```
package protocol LiveSyncPeer: AnyObject {
    /// One exchange: send the local changes the peer lacks, merge the peer's changes.
    func syncOnce() throws -> LiveSyncRound
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

/// What one round of a live sync moved.
///
/// <!-- assume: let event: LiveSyncEvent = given() -->
/// ```swift
/// if case .synced(let round) = event { print(round.pushed, "up,", round.pulled, "down") }
/// ```
public struct LiveSyncRound: Sendable, Equatable {
    /// Records the round sent to the peer.
    public var pushed: Int
    /// Records the round merged from the peer.
    public var pulled: Int
    /// Concurrent writes that lost a merge here in this round (also in the local conflict log).
    public var conflicts: [Conflict]
    /// Concurrent writes found on the far side (a remote's, or with two remotes both's): counted
    /// here, listed in that replica's conflict log.
    public var remoteConflicts = 0
    /// Set when this round resent everything both ways: a replica was found restored from an earlier
    /// state (or the cursors could not be proven).
    public var historyResync: HistoryResync?
    /// Entries the round sent both ways (those the receiving side had not merged already).
    public var entriesSent = 0
    /// The two replicas of the round: this store (or, with two remotes, the first) and the peer.
    package var replicas: [ReplicaID] = []

    /// A round's figures.
    public init(pushed: Int, pulled: Int, conflicts: [Conflict]) {
        self.pushed = pushed
        self.pulled = pulled
        self.conflicts = conflicts
    }
}

/// What a live sync reports as it runs.
///
/// ```swift
/// let live = try LiveSync(store: store, remote: "alice@desktop:settings") { event in
///     if case .disconnected(let error, let retryAfter) = event { print("offline:", error, "retrying in", retryAfter) }
/// }
/// ```
public enum LiveSyncEvent: Sendable {
    /// A session with the peer is open (first, or after a reconnection).
    case connected
    /// A round finished.
    case synced(LiveSyncRound)
    /// The session broke or could not be opened; the loop retries after `retryAfter`.
    case disconnected(error: String, retryAfter: Duration)
}
