import Concord
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps a file of a replica's Prometheus metrics current for node_exporter's textfile collector
/// (`sync-tool sync … --watch --metrics-file FILE`): written when it opens, at most once a second
/// after something changed (`changed()`, told each round), and once more when it stops. Reading the
/// figures scans the records (a second or more for millions of them): the pause after a write is at
/// least four times what the write took, so the figures never take more than a fifth of a core. Each write
/// goes to `FILE.tmp` in the same directory, is fsynced and renamed over FILE, so a reader sees a
/// whole file, the old one or the new one.
final class MetricsFile: Sendable {
    let path: String
    private let store: Store
    private let io: CommandIO
    private let dirty = Mutex(false)
    private let wake = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    /// Writes the file once (an error here ends the command: exit 3 for a path that cannot be
    /// written), then starts the thread that keeps it current.
    init(path: String, store: Store, io: CommandIO) throws {
        self.path = path
        self.store = store
        self.io = io
        do { try write() } catch let error as CLIError { throw error } catch {
            throw CLIError.invalid("--metrics-file \(printable(path)): \(error)")
        }
        Thread { [self] in loop() }.start()
    }

    /// The replica changed (a round ran): the file is rewritten within a second.
    func changed() { dirty.withLock { $0 = true } }

    /// Writes the file a last time and stops the thread.
    func stop() {
        wake.signal()
        done.wait()
    }

    private func loop() {
        var pause = 1.0
        while true {
            let stopping = wake.wait(timeout: .now() + pause) == .success
            let write = dirty.withLock { d in
                defer { d = false }
                return d
            }
            if write || stopping {
                let started = ContinuousClock.now
                do { try self.write() } catch { io.err("metrics file \(path): \(error)") }
                let took = ContinuousClock.now - started
                pause = max(1, 4 * (Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18))
            }
            if stopping { break }
        }
        done.signal()
    }

    /// Renders the figures and replaces the file with them.
    private func write() throws {
        let text = try ReplicaFigures(store).prometheus
        try Self.replace(path, with: Array(text.utf8))
    }

    /// Writes `bytes` to `path.tmp`, fsyncs it, renames it over `path` and fsyncs the directory.
    static func replace(_ path: String, with bytes: [UInt8]) throws {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CLIError.invalid("cannot write \(printable(temporary)): \(String(cString: strerror(errno)))") }
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let reason = String(cString: strerror(errno))
                close(fd)
                unlink(temporary)
                throw CLIError.invalid("cannot write \(printable(temporary)): \(reason)")
            }
            written += n
        }
        let synced = fsync(fd) == 0
        close(fd)
        guard synced, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw CLIError.invalid("cannot move \(printable(temporary)) into place: \(reason)")
        }
        let directory = (path as NSString).deletingLastPathComponent
        let dir = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 {
            fsync(dir)
            close(dir)
        }
    }
}
