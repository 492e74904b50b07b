import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Waits on a replica's notify file with inotify in a thread of its own and calls `onWake`
/// after each burst of commits, and when the time set by `wake(at:)` comes (the next value to
/// expire). Without inotify (some file systems), it falls back to checking once a second. Wake-ups
/// may coalesce; the hub reads the journal, so nothing is lost.
final class ChangeWatcher: Sendable {
    /// Written to by `stop()` (byte 0) and `wake(at:)` (byte 1), read by the thread.
    private let controlPipe: (read: Int32, write: Int32)
    /// The wall-clock time to wake at (milliseconds since 1970; 0: none), and whether `stop()` ran
    /// (the pipe's write end is closed then, and its descriptor may belong to another file).
    private let control = Control()

    private final class Control: Sendable {
        let state = Mutex<(deadline: UInt64, stopped: Bool)>((0, false))
        func withLock<R: Sendable>(_ body: (inout (deadline: UInt64, stopped: Bool)) -> R) -> R { state.withLock { body(&$0) } }
    }

    init(path: String, wallClock: @escaping @Sendable () -> UInt64, onWake: @escaping @Sendable () -> Void) throws {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw ConcordError.io(path: path, reason: "cannot create a pipe for the change watcher: \(String(cString: strerror(errno)))")
        }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK) // a wake-up never blocks its caller; one pending byte is enough
        controlPipe = (fds[0], fds[1])
        let stopFD = fds[0]
        let control = control
        let inotifyFD = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        var watching = false
        if inotifyFD >= 0 {
            watching = inotify_add_watch(inotifyFD, path, UInt32(IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE)) >= 0
        }
        let useInotify = watching
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            var polls = [
                pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0),
                pollfd(fd: useInotify ? inotifyFD : -1, events: Int16(POLLIN), revents: 0)
            ]
            loop: while true {
                polls[0].revents = 0
                polls[1].revents = 0
                var timeout: Int32 = useInotify ? -1 : 1000
                let deadline = control.withLock { $0.deadline }
                if deadline != 0 {
                    let now = wallClock()
                    // At most a minute at a time: a wall clock set forward is met within that.
                    let wait = Int32(min(deadline > now ? deadline - now : 0, 60_000))
                    timeout = timeout < 0 ? wait : min(timeout, wait)
                }
                let n = poll(&polls, 2, timeout)
                if n < 0 && errno == EINTR { continue }
                if polls[0].revents != 0 {
                    var byte: UInt8 = 0
                    if read(stopFD, &byte, 1) != 1 || byte == 0 { break loop }
                    continue // a new deadline
                }
                if n == 0, deadline != 0 {
                    if wallClock() >= deadline {
                        control.withLock { if $0.deadline == deadline { $0.deadline = 0 } }
                    } else if useInotify {
                        continue // woke early (the wait is capped); the fallback's once a second goes on below
                    }
                }
                if useInotify {
                    while read(inotifyFD, &buffer, buffer.count) > 0 {}
                }
                onWake()
            }
            if inotifyFD >= 0 { close(inotifyFD) }
            close(stopFD)
        }
        thread.name = "concord-change-watcher"
        thread.start()
    }

    /// Wakes the hub at `deadline` (wall-clock milliseconds since 1970), or never for nil: the
    /// earliest expiry the hub knows of.
    func wake(at deadline: UInt64?) {
        control.withLock { c in
            guard !c.stopped, c.deadline != (deadline ?? 0) else { return }
            c.deadline = deadline ?? 0
            var byte: UInt8 = 1
            _ = write(controlPipe.write, &byte, 1)
        }
    }

    /// Stops the thread (asynchronously).
    func stop() {
        control.withLock { c in
            guard !c.stopped else { return }
            c.stopped = true
            var byte: UInt8 = 0
            _ = write(controlPipe.write, &byte, 1)
            close(controlPipe.write)
        }
    }
}
