#if canImport(Glibc)
    import Glibc
#endif

/// Another replica this process can open (a directory) as a live-sync peer: each round is a
/// `Synchronizer` sync, and the other replica's own commits (not what this sync merged into it)
/// wake the loop as announcements.
///
/// ```swift
/// let live = try LiveSync(store: phone) { try DirectoryLivePeer(store: phone, other: watch) }
/// ```
package final class DirectoryLivePeer: LiveSyncPeer {
    private let store: Store
    private let other: Store
    private let synchronizer: Synchronizer
    private let otherCommits: CommitSignal
    /// The other replica's registration of this live session (this store's is the loop's).
    private let presence: LivePresence

    package init(store: Store, other: Store, selection: SyncSelection = .all) throws {
        guard store.replicaID != other.replicaID else { throw ConcordError.sameReplica(store.replicaID, other.directory) }
        self.store = store
        self.other = other
        synchronizer = Synchronizer(selection: selection)
        let mine = store.replicaID
        otherCommits = try CommitSignal(store: other) { $0 == .sync(peer: mine) }
        presence = try LivePresence(directory: other.directory, peer: mine)
    }

    package var mergeOrigin: ChangeOrigin { .sync(peer: other.replicaID) }

    package func syncOnce() throws -> SyncReport {
        otherCommits.drain()
        return try synchronizer.sync(store, other)
    }

    package func waitForAnnouncement(timeout: Double, wakeDescriptor: Int32) throws -> LiveSyncWake {
        var fds = [pollfd(fd: otherCommits.descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)]
        while true {
            let n = poll(&fds, 2, Int32(min(timeout * 1000, Double(Int32.max))))
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return .timeout }
            return fds[1].revents != 0 ? .local : .announced
        }
    }
}
