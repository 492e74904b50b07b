import CLMDB
import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

extension Environment {
    /// Writes a consistent copy of the data file into `directory/data.mdb` while other threads and
    /// processes keep reading and writing (the corresponding C function is `mdb_env_copyfd2`).
    ///
    /// The copy holds exactly the transactions committed before it started: LMDB reads it from one
    /// read snapshot, taken while it briefly holds the writer lock. With `compact`, free pages are
    /// left out and the rest renumbered (`MDB_CP_COMPACT`): a smaller file, for more CPU.
    ///
    /// The file is created here with `options.fileMode` whatever the umask, refusing one that exists
    /// or a symlink (`mdb_env_copy2` would create it 0666 less the umask), and it is fsynced, with its
    /// directory, before this returns. On failure the partial file is removed.
    ///
    /// ```swift
    /// let bytes = try env.copy(intoDirectory: "/var/backups/settings", compact: true)
    /// ```
    ///
    /// - Parameters:
    ///   - directory: An existing directory without a `data.mdb`.
    ///   - compact: Whether to leave free pages out.
    ///   - progress: Called about every 50 ms from another thread with the bytes written so far.
    /// - Returns: The size of the copy, in bytes.
    /// - Throws: `LMDBError` with LMDB's code or the `errno` of the failed file operation.
    @discardableResult
    package func copy(intoDirectory directory: String, compact: Bool, progress: (@Sendable (Int) -> Void)? = nil) throws -> Int {
        let path = directory + "/data.mdb"
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(options.fileMode))
        guard fd >= 0 else { throw LMDBError(code: errno, operation: "creating \(path) for the copy") }
        do {
            let monitor = progress.map { Self.watchSize(of: fd, progress: $0) }
            let bytes: Int
            do {
                defer { monitor?.cancel() }
                bytes = try copy(to: fd, path: path, compact: compact)
            }
            close(fd)
            try Self.syncDirectory(directory)
            return bytes
        } catch {
            close(fd)
            unlink(path)
            throw error
        }
    }

    private func copy(to fd: Int32, path: String, compact: Bool) throws -> Int {
        fchmod(fd, mode_t(options.fileMode)) // open() applied the umask
        while true {
            // The copy begins its own read transaction; this one keeps every thread of this process
            // from remapping the map under it, and first adopts a map another process grew.
            let rc = try read { _ in C.envCopy(handle, toFile: fd, compact ? UInt32(MDB_CP_COMPACT) : 0) }
            if rc == MDB_MAP_RESIZED { // grown again between the two transactions: start over
                guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else {
                    throw LMDBError(code: errno, operation: "restarting the copy into \(path)")
                }
                try adoptGrownMap()
                continue
            }
            guard rc == 0 else { throw LMDBError(code: rc, operation: "copying the environment at \(self.path) to \(path) (mdb_env_copyfd2)") }
            guard fsync(fd) == 0 else { throw LMDBError(code: errno, operation: "fsync of \(path)") }
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw LMDBError(code: errno, operation: "fstat of \(path)") }
            return Int(info.st_size)
        }
    }

    /// Reports the size of the file open as `fd` every 50 ms, from a duplicate of it (closed when the
    /// returned timer is cancelled), so the copy's writes are seen as they land.
    private static func watchSize(of fd: Int32, progress: @escaping @Sendable (Int) -> Void) -> DispatchSourceTimer {
        let watched = dup(fd)
        let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        timer.schedule(deadline: .now(), repeating: .milliseconds(50))
        timer.setEventHandler {
            var info = stat()
            if watched >= 0, fstat(watched, &info) == 0 { progress(Int(info.st_size)) }
        }
        timer.setCancelHandler { if watched >= 0 { close(watched) } }
        timer.resume()
        return timer
    }

    /// Makes a new directory entry durable (fsync of the directory itself).
    private static func syncDirectory(_ directory: String) throws {
        let fd = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw LMDBError(code: errno, operation: "opening \(directory) to fsync it") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw LMDBError(code: errno, operation: "fsync of \(directory)") }
    }
}
