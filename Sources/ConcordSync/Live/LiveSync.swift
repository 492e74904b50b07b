import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps a store in sync with a peer while it runs (see the architecture document, "Live sync"): it
/// syncs at once, then after every local commit (woken by the store's change notification, bursts
/// coalesced) and every change the peer announces, plus a heartbeat round when all is quiet. A
/// broken session is reopened with capped, jittered backoff; cursors only move forward, so it
/// resumes where it was. The peer is another replica — a directory, or a remote over ssh — or a hub.
///
/// Runs on a thread of its own (the peer's connection never leaves it) until `stop()`. Its state
/// (connecting, in sync, pending changes, last error, last round) is `state`, and `states()` streams it.
///
/// ```swift
/// let live = try LiveSync(store: store, remote: "alice@desktop:settings")
/// Task { for await state in live.states() { print(state) } }
/// // … later
/// live.stop()
/// ```
public final class LiveSync: Sendable {
    /// The time between rounds when nothing happens (each also checks the connection).
    public let heartbeat: Duration
    /// The longest wait between reconnection attempts.
    public let maxBackoff: Duration

    private let signal: CommitSignal
    /// The store kept in sync (nil for a relay between two remotes).
    private let store: Store?
    /// The peer, once a session reached it.
    private let peerID = Mutex<ReplicaID?>(nil)
    private let stopped = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)
    private let current = Mutex(LiveSyncState())
    private let subscribers = Mutex<[UUID: AsyncStream<LiveSyncState>.Continuation]>([:])

    /// Starts the loop. `connect` opens a session (called again after each failure); `onEvent` runs on
    /// the loop's thread.
    package convenience init(
        store: Store, heartbeat: Duration = .seconds(10), maxBackoff: Duration = .seconds(5),
        onEvent: @escaping @Sendable (LiveSyncEvent) -> Void = { _ in },
        connect: @escaping @Sendable () throws -> any LiveSyncPeer
    ) throws {
        self.init(
            signal: try CommitSignal(store: store), store: store, heartbeat: heartbeat, maxBackoff: maxBackoff, onEvent: onEvent, connect: connect)
    }

    /// A loop woken by `signal` (a store's commits; with no store, only by a stop): a relay between
    /// two remotes holds no store of its own.
    package init(
        signal: CommitSignal = CommitSignal(), store: Store? = nil, heartbeat: Duration = .seconds(10), maxBackoff: Duration = .seconds(5),
        onEvent: @escaping @Sendable (LiveSyncEvent) -> Void = { _ in },
        connect: @escaping @Sendable () throws -> any LiveSyncPeer
    ) {
        self.store = store
        self.heartbeat = heartbeat
        self.maxBackoff = maxBackoff
        self.signal = signal
        let thread = Thread { [self] in
            run(connect: connect, onEvent: onEvent)
            update { $0.connection = .stopped }
            finished.store(true, ordering: .releasing)
            // Finished outside the lock: finishing runs the stream's onTermination, which takes it.
            for c in subscribers.withLock({ s in
                defer { s = [:] }
                return Array(s.values)
            }) { c.finish() }
        }
        thread.name = "concord-live-sync"
        thread.start()
    }

    /// Keeps `store` in sync with the replica at `remote` (`[user@]host:PATH` or
    /// `ssh://[user@]host[:port]/PATH`, reached with `ssh … sync-tool serve PATH`).
    ///
    /// ```swift
    /// var options = RemoteOptions()
    /// options.rsh = "ssh -p 2222"
    /// let live = try LiveSync(store: store, remote: "desktop:settings", options: options)
    /// ```
    public convenience init(
        store: Store, remote: String, options: RemoteOptions = RemoteOptions(), selection: SyncSelection = .all,
        heartbeat: Duration = .seconds(10), maxBackoff: Duration = .seconds(5)
    ) throws {
        try self.init(
            store: store, remote: remote, options: options, selection: selection, heartbeat: heartbeat, maxBackoff: maxBackoff, onEvent: { _ in })
    }

    /// ``init(store:remote:options:selection:heartbeat:maxBackoff:)``, telling `onEvent` of each
    /// connection, round and disconnection on the loop's thread (the command-line tool's output).
    package convenience init(
        store: Store, remote: String, options: RemoteOptions = RemoteOptions(), selection: SyncSelection = .all,
        heartbeat: Duration = .seconds(10), maxBackoff: Duration = .seconds(5),
        onEvent: @escaping @Sendable (LiveSyncEvent) -> Void
    ) throws {
        let address = try RemoteAddress.parse(remote)
        try self.init(store: store, heartbeat: heartbeat, maxBackoff: maxBackoff, onEvent: onEvent) {
            try StreamLivePeer(store: store, connection: try RemoteConnection.open(address, options: options, suites: selection), selection: selection)
        }
    }

    /// Keeps `store` in sync with the replica in the local directory `directory` (another app's store,
    /// a mounted volume).
    ///
    /// ```swift
    /// let live = try LiveSync(store: phone, directory: "/data/watch")
    /// ```
    public convenience init(
        store: Store, directory: String, selection: SyncSelection = .all, heartbeat: Duration = .seconds(10), maxBackoff: Duration = .seconds(5)
    ) throws {
        try self.init(store: store, directory: directory, selection: selection, heartbeat: heartbeat, maxBackoff: maxBackoff, onEvent: { _ in })
    }

    /// ``init(store:directory:selection:heartbeat:maxBackoff:)``, telling `onEvent` of each connection,
    /// round and disconnection on the loop's thread.
    package convenience init(
        store: Store, directory: String, selection: SyncSelection = .all, heartbeat: Duration = .seconds(10), maxBackoff: Duration = .seconds(5),
        onEvent: @escaping @Sendable (LiveSyncEvent) -> Void
    ) throws {
        try self.init(store: store, heartbeat: heartbeat, maxBackoff: maxBackoff, onEvent: onEvent) {
            try DirectoryLivePeer(store: store, other: try Store(path: directory), selection: selection)
        }
    }

    /// The loop's state now.
    public var state: LiveSyncState { current.withLock { $0 } }

    /// The state now, then every change of it, until the loop stops.
    ///
    /// <!-- assume: let live = try LiveSync(store: phone, directory: "/data/watch") -->
    /// ```swift
    /// for await state in live.states() where state.isInSync { print("in sync after", state.lastRound as Any) }
    /// ```
    public func states() -> AsyncStream<LiveSyncState> {
        let (stream, continuation) = AsyncStream<LiveSyncState>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = UUID()
        continuation.yield(state)
        if finished.load(ordering: .acquiring) {
            continuation.finish()
            return stream
        }
        subscribers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in self?.subscribers.withLock { _ = $0.removeValue(forKey: id) } }
        return stream
    }

    /// Stops the loop (the round under way finishes first) and waits until it has stopped.
    public func stop() {
        signal.cancel()
        stopped.store(true, ordering: .releasing)
        signal.poke()
        while !finished.load(ordering: .acquiring) { usleep(1_000) }
    }

    /// Returns once the peer has acknowledged every change the store committed before the call (see
    /// ``Store/waitUntilAcknowledged(by:timeout:)``); before the first session reached the peer, it
    /// waits for that too.
    ///
    /// <!-- assume: let live = try LiveSync(store: phone, directory: "/data/watch") -->
    /// ```swift
    /// try await suite.set("dark", forKey: "theme")
    /// try await live.waitUntilAcknowledged(timeout: .seconds(5))
    /// ```
    ///
    /// A live sync between two remotes (no store of its own) has nothing of its own to wait for and
    /// returns at once.
    ///
    /// - Parameter timeout: How long to wait at most.
    /// - Throws: ``ConcordError`` `.notAcknowledged` when `timeout` passes first (naming the peer and how
    ///   many changes it has not acknowledged, or saying it was never reached).
    public func waitUntilAcknowledged(timeout: Duration) async throws {
        guard let store else { return }
        let start = ContinuousClock.now
        if peerID.withLock({ $0 }) == nil {
            let reached = Task {
                for await _ in states() where peerID.withLock({ $0 }) != nil { return true }
                return false
            }
            let timer = Task {
                try await Task.sleep(for: timeout)
                reached.cancel()
            }
            _ = await reached.value
            timer.cancel()
        }
        guard let peer = peerID.withLock({ $0 }) else {
            let pending = try DeltaReader.read(from: store, for: nil, alreadyMerged: .none, countOnly: true).counted
            throw ConcordError.notAcknowledged(peer: nil, name: nil, pending: pending, waited: timeout)
        }
        let left = timeout - (ContinuousClock.now - start)
        do { try await store.waitUntilAcknowledged(by: peer, timeout: max(left, .zero)) } catch let error as ConcordError where error.code == .notAcknowledged {
            throw error.waited(timeout)
        }
    }

    private func update(_ change: (inout LiveSyncState) -> Void) {
        let state = current.withLock { s in
            change(&s)
            return s
        }
        for c in subscribers.withLock({ Array($0.values) }) { c.yield(state) }
    }

    private func run(connect: @Sendable () throws -> any LiveSyncPeer, onEvent: @Sendable (LiveSyncEvent) -> Void) {
        var backoff = 0.1
        while !stopped.load(ordering: .acquiring) {
            do {
                update { $0.connection = .connecting }
                let peer = try connect()
                let origin = peer.mergeOrigin
                signal.ignore { $0 == origin }
                // Registered in the store as live with the peer while connected (`Store.livePeers`).
                var presence: LivePresence?
                if case .sync(let id) = origin {
                    peerID.withLock { $0 = id }
                    if let store { presence = try LivePresence(directory: store.directory, peer: id) }
                }
                defer { withExtendedLifetime(presence) {} }
                update { $0.connection = .connected }
                onEvent(.connected)
                backoff = 0.1
                var due = true
                while !stopped.load(ordering: .acquiring) {
                    if due {
                        signal.drain()
                        let round = try peer.syncOnce()
                        update {
                            $0.lastRound = round
                            $0.lastRoundDate = Date()
                            $0.lastError = nil
                            $0.rounds += 1
                            $0.pendingChanges = false
                            $0.isInSync = true
                        }
                        onEvent(.synced(round))
                    }
                    let wake = try peer.waitForAnnouncement(timeout: heartbeat.inSeconds, wakeDescriptor: signal.descriptor)
                    due = wake != .ownEcho
                    if wake == .local && !stopped.load(ordering: .acquiring) {
                        update {
                            $0.pendingChanges = true
                            $0.isInSync = false
                        }
                    }
                    if wake == .announced { update { $0.isInSync = false } }
                }
            } catch {
                guard !stopped.load(ordering: .acquiring) else { break }
                let delay = backoff * Double.random(in: 0.5...1.0)
                update {
                    $0.connection = .waitingToRetry(after: .seconds(delay))
                    $0.lastError = "\(error)"
                    $0.isInSync = false
                }
                onEvent(.disconnected(error: "\(error)", retryAfter: .seconds(delay)))
                sleepUnlessStopped(delay)
                backoff = min(backoff * 2, maxBackoff.inSeconds)
            }
        }
    }

    private func sleepUnlessStopped(_ seconds: Double) {
        var fds = [pollfd(fd: signal.descriptor, events: Int16(POLLIN), revents: 0)]
        let deadline = Date().addingTimeInterval(seconds)
        while !stopped.load(ordering: .acquiring) {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return }
            _ = poll(&fds, 1, Int32(left * 1000) + 1)
            if stopped.load(ordering: .acquiring) { return }
            if signal.drain() { update { $0.pendingChanges = true } }
        }
    }
}

/// Where a `LiveSync` stands, as ``LiveSync/state`` and ``LiveSync/states()`` report it.
///
/// <!-- assume: let live = try LiveSync(store: phone, directory: "/data/watch") -->
/// ```swift
/// if live.state.isConnected && live.state.isInSync { print("up to date") }
/// if let wait = live.state.retryAfter { print("offline, retrying in", wait) }
/// ```
public struct LiveSyncState: Sendable, Equatable, CustomStringConvertible {
    /// Whether a session with the peer is open.
    package enum Connection: Sendable, Equatable {
        /// Opening a session (first, or after a failure).
        case connecting
        /// A session is open.
        case connected
        /// The session broke or could not be opened; the next attempt is `after` this long.
        case waitingToRetry(after: Duration)
        /// `stop()` was called.
        case stopped
    }

    /// Whether a session with the peer is open, being opened, or waiting to be retried.
    package var connection = Connection.connecting
    /// Whether a session with the peer is open.
    public var isConnected: Bool { connection == .connected }
    /// How long the loop waits before it tries again, while the session is broken or could not be
    /// opened; nil while connecting, connected, or stopped.
    public var retryAfter: Duration? {
        if case .waitingToRetry(let after) = connection { return after }
        return nil
    }
    /// Whether the loop has stopped (``LiveSync/stop()``).
    public var isStopped: Bool { connection == .stopped }
    /// The last round left both replicas alike, and nothing has changed on either side since.
    public var isInSync = false
    /// Local commits are waiting to be pushed (the round that sends them is due or under way).
    public var pendingChanges = false
    /// Why the last session failed, until a round succeeds.
    public var lastError: String?
    /// What the last round moved (A is this store, B the peer).
    public var lastRound: SyncReport?
    /// When the last round ended.
    public var lastRoundDate: Date?
    /// Rounds completed since the start.
    public var rounds = 0

    /// The state of a live sync that has not connected yet.
    public init() {}

    public var description: String {
        var parts = ["\(connection)", isInSync ? "in sync" : "not in sync"]
        if pendingChanges { parts.append("changes pending") }
        if let lastRound { parts.append("last round: \(lastRound.aToB.recordsChanged) pushed, \(lastRound.bToA.recordsChanged) pulled") }
        if let lastError { parts.append("last error: \(lastError)") }
        return parts.joined(separator: ", ")
    }
}
