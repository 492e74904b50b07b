import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The small file a writer touches after every commit, so observers in other processes wake up
/// (see the architecture document, "Journal and observation"). Touching it is one `pwrite` of one byte.
final class ChangeSignal: Sendable {
    let path: String
    private let fd: Int32

    init(directory: String) throws {
        path = directory + "/notify"
        fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw ConcordError.io(path: path, reason: "cannot open the change-notification file: \(String(cString: strerror(errno)))") }
    }

    deinit { close(fd) }

    /// Wakes every watcher of this replica.
    func touch() {
        var byte: UInt8 = 1
        _ = pwrite(fd, &byte, 1, 0)
    }
}
