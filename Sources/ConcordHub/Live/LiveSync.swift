import ConcordStore
import ConcordSync
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Keeps a store in sync with a peer while it runs (see the architecture document, "Live sync"): it syncs at once, then
/// after every local commit (woken by the store's change notification, bursts coalesced) and every
/// change the peer announces, plus a heartbeat round when all is quiet. A broken session is
/// reopened with capped, jittered backoff; cursors only move forward, so it resumes where it was.
///
/// Runs on a thread of its own (the peer's connection never leaves it) until `stop()`.
///
/// ```swift
/// let live = try LiveSync(store: store, onEvent: { print($0) }) {
///     try HubLivePeer(store: store, url: "postgresql://alice@db.example.com/settings")
/// }
/// // … later
/// live.stop()
/// ```
public final class LiveSync: Sendable {
    /// Seconds between rounds when nothing happens (each also checks the connection).
    public let heartbeat: Double
    /// The longest wait between reconnection attempts.
    public let maxBackoff: Double

    private let wake: (read: Int32, write: Int32)
    private let stopped = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)
    private let observation: Mutex<ObservationToken?> = Mutex(nil)

    /// Starts the loop. `connect` opens a session (called again after each failure); `onEvent` runs on
    /// the loop's thread.
    public init(store: Store, heartbeat: Double = 10, maxBackoff: Double = 5,
                onEvent: @escaping @Sendable (LiveSyncEvent) -> Void = { _ in },
                connect: @escaping @Sendable () throws -> any LiveSyncPeer) throws {
        self.heartbeat = heartbeat
        self.maxBackoff = maxBackoff
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw StoreError.io(path: store.directory, reason: "cannot create a pipe for live sync: \(String(cString: strerror(errno)))") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC); _ = fcntl(fd, F_SETFL, O_NONBLOCK) }
        wake = (fds[0], fds[1])
        let ownMerge = Mutex<(@Sendable (ChangeOrigin) -> Bool)?>(nil)
        let poke: @Sendable () -> Void = { [wake] in var b: UInt8 = 1; _ = write(wake.write, &b, 1) }
        let token = try store.observe { change in
            if ownMerge.withLock({ $0?(change.origin) }) == true { return }
            poke()
        }
        observation.withLock { $0 = token }
        let thread = Thread { [self] in
            run(connect: connect, onEvent: onEvent, setOwnMerge: { f in ownMerge.withLock { $0 = f } })
            finished.store(true, ordering: .releasing)
        }
        thread.name = "concord-live-sync"
        thread.start()
    }

    deinit {
        close(wake.read)
        close(wake.write)
    }

    /// Stops the loop (the round under way finishes first) and waits until it has stopped.
    public func stop() {
        observation.withLock { $0?.cancel(); $0 = nil }
        stopped.store(true, ordering: .releasing)
        var b: UInt8 = 1
        _ = write(wake.write, &b, 1)
        while !finished.load(ordering: .acquiring) { usleep(1_000) }
    }

    private func run(connect: @Sendable () throws -> any LiveSyncPeer, onEvent: @Sendable (LiveSyncEvent) -> Void,
                     setOwnMerge: (@escaping @Sendable (ChangeOrigin) -> Bool) -> Void) {
        var backoff = 0.1
        while !stopped.load(ordering: .acquiring) {
            do {
                let peer = try connect()
                let origin = peer.mergeOrigin
                setOwnMerge { $0 == origin }
                onEvent(.connected)
                backoff = 0.1
                var due = true
                while !stopped.load(ordering: .acquiring) {
                    if due {
                        drainWake()
                        onEvent(.synced(try peer.syncOnce()))
                    }
                    let wake = try peer.waitForAnnouncement(timeout: heartbeat, wakeDescriptor: self.wake.read)
                    due = wake != .ownEcho
                }
            } catch {
                guard !stopped.load(ordering: .acquiring) else { break }
                let delay = backoff * Double.random(in: 0.5...1.0)
                onEvent(.disconnected(error: "\(error)", retryAfter: delay))
                sleepUnlessStopped(delay)
                backoff = min(backoff * 2, maxBackoff)
            }
        }
    }

    private func drainWake() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(wake.read, &buffer, buffer.count) > 0 {}
    }

    private func sleepUnlessStopped(_ seconds: Double) {
        var fds = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        let deadline = Date().addingTimeInterval(seconds)
        while !stopped.load(ordering: .acquiring) {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return }
            _ = poll(&fds, 1, Int32(left * 1000) + 1)
            if stopped.load(ordering: .acquiring) { return }
            drainWake()
        }
    }
}
