import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Waits on a replica's notify file with inotify in a thread of its own and calls `onWake`
/// after each burst of commits. Without inotify (some file systems), it falls back to
/// checking once a second. Wake-ups may coalesce; the hub reads the journal, so nothing is lost.
final class ChangeWatcher: Sendable {
    private let stopPipe: (read: Int32, write: Int32)

    init(path: String, onWake: @escaping @Sendable () -> Void) throws {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw StoreError.io(path: path, reason: "cannot create a pipe for the change watcher: \(String(cString: strerror(errno)))")
        }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        stopPipe = (fds[0], fds[1])
        let stopFD = fds[0]
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
            while true {
                polls[0].revents = 0
                polls[1].revents = 0
                let n = poll(&polls, 2, useInotify ? -1 : 1000)
                if n < 0 && errno == EINTR { continue }
                if polls[0].revents != 0 { break }
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

    /// Stops the thread (asynchronously).
    func stop() {
        var byte: UInt8 = 1
        _ = write(stopPipe.write, &byte, 1)
        close(stopPipe.write)
    }
}
