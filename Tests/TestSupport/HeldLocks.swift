import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The locks this process holds on a directory's LMDB files, as the kernel shows them: what a process with
/// the environment open must hold, or another process would take the directory for unused.
///
/// ```swift
/// #expect(try HeldLocks(directory: path).complete)
/// ```
public struct HeldLocks: CustomStringConvertible, Sendable {
    /// LMDB's shared lock on the first byte of `lock.mdb` (held while the environment is open).
    public var lockFileShared = false
    /// LMDB's lock on the byte of `lock.mdb` at this process's id, taken at the environment's first
    /// read (other processes check it to tell a live reader from a dead one's stale slot).
    public var readerAlive = false
    /// The shared `flock` on `data.mdb` (LockFileGuard).
    public var dataFileShared = false

    /// Whether all three are held.
    public var complete: Bool { lockFileShared && readerAlive && dataFileShared }

    /// Reads the locks from `/proc/self/fdinfo` of each descriptor this process has of the files:
    /// each lists the locks taken through it, in one small read. (`/proc/locks` lists every lock of
    /// the machine, and a read of more than a page of it skips lines when locks come and go meanwhile.)
    public init(directory: String) throws {
        let pid = String(getpid())
        guard let resolved = realpath(directory, nil) else { throw POSIXError(.ENOENT) }
        let base = String(cString: resolved)
        free(resolved)
        let files = FileManager.default
        for fd in try files.contentsOfDirectory(atPath: "/proc/self/fd") {
            guard let target = try? files.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd),
                target == base + "/lock.mdb" || target == base + "/data.mdb",
                let info = try? String(contentsOfFile: "/proc/self/fdinfo/" + fd, encoding: .utf8)
            else { continue }
            let isLockFile = target.hasSuffix("/lock.mdb")
            for line in info.split(separator: "\n") where line.hasPrefix("lock:") {
                // "lock:\t1: POSIX  ADVISORY  READ 4242 fe:00:1234 0 0"
                let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard fields.count >= 9, fields[5] == pid else { continue }
                let (kind, mode, start) = (fields[2], fields[4], fields[7])
                if isLockFile && kind == "POSIX" && mode == "READ" && start == "0" { lockFileShared = true }
                if isLockFile && kind == "POSIX" && mode == "WRITE" && start == pid { readerAlive = true }
                if !isLockFile && kind == "FLOCK" && mode == "READ" { dataFileShared = true }
            }
        }
    }

    public var description: String {
        "this process holds LMDB's shared lock on lock.mdb: \(lockFileShared), its reader lock: \(readerAlive), the flock on data.mdb: \(dataFileShared)"
    }
}
