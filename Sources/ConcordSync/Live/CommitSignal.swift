import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A descriptor that becomes readable when a store commits a change that matters (bursts coalesce
/// into one wake-up), so a loop can `poll` it beside a connection. `ignoring` filters out changes
/// by origin: a live session does not announce or push back what it just merged from its peer.
///
/// <!-- assume:
/// let peer = phone.replicaID
/// func sync() {}
/// -->
/// ```swift
/// let signal = try CommitSignal(store: store) { $0 == .sync(peer: peer) }
/// // poll(signal.descriptor) … then:
/// if signal.drain() { sync() }
/// ```
package final class CommitSignal: Sendable {
    private let pipeEnds: (read: Int32, write: Int32)
    private let token: Mutex<ObservationToken?> = Mutex(nil)
    private let filter: Mutex<(@Sendable (ChangeOrigin) -> Bool)?>

    package convenience init(store: Store, ignoring: (@Sendable (ChangeOrigin) -> Bool)? = nil) throws {
        self.init(ignoring: ignoring)
        guard pipeEnds.read >= 0 else {
            throw ConcordError.io(path: store.directory, reason: "cannot create a pipe to watch for commits: \(String(cString: strerror(errno)))")
        }
        let observed = try store.changes().start { [weak self] change in
            guard let self, self.filter.withLock({ $0?(change.origin) }) != true else { return }
            self.poke()
        }
        token.withLock { $0 = observed }
    }

    /// A signal no store pokes: only `poke()` wakes it (a loop's stop).
    package init(ignoring: (@Sendable (ChangeOrigin) -> Bool)? = nil) {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, O_NONBLOCK)
            }
        }
        pipeEnds = (fds[0], fds[1])
        filter = Mutex(ignoring)
    }

    deinit {
        token.withLock { $0?.cancel() }
        close(pipeEnds.read)
        close(pipeEnds.write)
    }

    /// Readable while a commit waits to be drained.
    package var descriptor: Int32 { pipeEnds.read }

    /// Changes which origins are ignored from now on.
    package func ignore(_ ignoring: @escaping @Sendable (ChangeOrigin) -> Bool) { filter.withLock { $0 = ignoring } }

    /// Makes the descriptor readable (to wake a waiting loop for another reason, such as a stop).
    package func poke() {
        var b: UInt8 = 1
        _ = write(pipeEnds.write, &b, 1)
    }

    /// Stops watching the store (the descriptor stays open until the signal is released).
    package func cancel() {
        token.withLock {
            $0?.cancel()
            $0 = nil
        }
    }

    /// Empties the descriptor; true if there was anything in it.
    @discardableResult
    package func drain() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 256)
        var any = false
        while read(pipeEnds.read, &buffer, buffer.count) > 0 { any = true }
        return any
    }
}
