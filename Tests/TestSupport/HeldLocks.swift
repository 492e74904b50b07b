import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The locks this process holds on a directory's LMDB files, from `/proc/locks`: what a process with
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

    public init(directory: String) throws {
        let pid = String(getpid())
        func inode(_ file: String) throws -> String {
            var info = stat()
            guard stat(directory + "/" + file, &info) == 0 else { throw POSIXError(.ENOENT) }
            return ":" + String(info.st_ino)
        }
        let (lockInode, dataInode) = (try inode("lock.mdb"), try inode("data.mdb"))
        let table = try String(contentsOfFile: "/proc/locks", encoding: .utf8)
        for line in table.split(separator: "\n") {
            // "1: POSIX  ADVISORY  READ 4242 fe:00:1234 0 0" (a waiter has "->" after the number)
            let fields = line.split(separator: " ").filter { $0 != "->" }
            guard fields.count >= 8, fields[4] == pid else { continue }
            let (kind, mode, file, start) = (fields[1], fields[3], fields[5], fields[6])
            if kind == "POSIX" && file.hasSuffix(lockInode) && mode == "READ" && start == "0" { lockFileShared = true }
            if kind == "POSIX" && file.hasSuffix(lockInode) && mode == "WRITE" && start == pid { readerAlive = true }
            if kind == "FLOCK" && file.hasSuffix(dataInode) && mode == "READ" { dataFileShared = true }
        }
    }

    public var description: String {
        "this process holds LMDB's shared lock on lock.mdb: \(lockFileShared), its reader lock: \(readerAlive), the flock on data.mdb: \(dataFileShared)"
    }
}
