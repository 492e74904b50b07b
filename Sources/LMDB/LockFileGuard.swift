#if canImport(Glibc)
    import Glibc
#endif

/// Keeps two writers from sharing one data file through two lock files.
///
/// LMDB's write lock and reader table live in `lock.mdb`. When that file is deleted or replaced while
/// a process has the environment open, the next process to open the directory creates (or takes) a
/// new one with a write lock of its own: two writers then commit over each other, damaging the store
/// and losing acknowledged writes. So every process of this layer
///
/// - notes which lock file it opened (device and inode) and compares it with the file at the path at
///   the start of every write transaction and before every commit (a `stat`: the write stops with an
///   error instead of committing);
/// - holds a shared `flock` on the data file while it has the environment open, taken after LMDB has
///   locked the lock file; a process that opens the directory while others hold the data file checks
///   that one of them holds the lock file it opened, and refuses otherwise.
///
/// A descriptor of the lock file stays open for the environment's life: POSIX drops every `fcntl` lock
/// a process holds on a file when it closes any descriptor of it, so this one is closed only after
/// LMDB closed its own.
///
/// The data file's `flock` belongs to the open file description, which a child process started
/// meanwhile shares until it executes its program: releasing it is an explicit `LOCK_UN`, not a
/// close, or the child's copy would keep it, and the next open of the directory in this process would
/// take the lock for another process's.
final class LockFileGuard: @unchecked Sendable {
    let lockPath: String
    private let device: UInt64
    private let inode: UInt64
    /// A descriptor of the lock file (-1 once closed).
    private var lockDescriptor: Int32
    /// Holds the shared `flock` on the data file (-1 once released).
    private var dataDescriptor: Int32

    /// A descriptor of a lock file opened before LMDB opens it, and the file's identity.
    struct Opened {
        let descriptor: Int32
        let device: UInt64
        let inode: UInt64
    }

    /// Gives the lock file its blocks before LMDB maps it: LMDB sizes a new lock file with `ftruncate`
    /// and writes it through the map, so on a full file system its first write is a SIGBUS; allocated
    /// first, a full disk is an error (ENOSPC) and a lock file created here is removed again.
    /// Returns its descriptor, for the guard to keep (nil when the file cannot be opened for writing:
    /// that is left to LMDB to report). Close it only before `mdb_env_open`, or after LMDB closed its own.
    static func allocate(directory: String, maxReaders: Int, mode: UInt32) throws -> Opened? {
        let path = directory + "/lock.mdb"
        // LMDB's lock file: a header and one 64-byte slot per reader, in whole pages.
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let bytes = ((maxReaders + 2) * 64 + page - 1) / page * page
        var created = false
        var fd = open(path, O_RDWR | O_CLOEXEC)
        if fd < 0 && errno == ENOENT {
            created = true
            fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(mode))
            if fd < 0 && errno == EEXIST { // another process created it meanwhile
                created = false
                fd = open(path, O_RDWR | O_CLOEXEC)
            }
        }
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            close(fd)
            return nil
        }
        let rc = Int(info.st_blocks) * 512 >= bytes ? 0 : posix_fallocate(fd, 0, off_t(bytes))
        guard rc == 0 || rc == EOPNOTSUPP || rc == EINVAL else {
            close(fd)
            if created { unlink(path) }
            throw LMDBError(
                code: rc, operation: "creating the lock file of \(directory)",
                message: "\(String(cString: strerror(rc))): \(FileSystemSpace.describe(directory)) has no room for its \(bytes) bytes")
        }
        return Opened(descriptor: fd, device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Call right after `mdb_env_open` succeeded, with the lock file `allocate` opened just before it
    /// (the guard keeps its descriptor; nil when it opened none): throws when the file at the path is
    /// not that one (it changed while LMDB opened it), or when other processes use the data file
    /// through another lock file.
    init(directory: String, opened: Opened?) throws {
        lockPath = directory + "/lock.mdb"
        if let opened {
            (device, inode, lockDescriptor, dataDescriptor) = (opened.device, opened.inode, opened.descriptor, -1)
            var info = stat()
            guard stat(lockPath, &info) == 0, UInt64(info.st_dev) == device, UInt64(info.st_ino) == inode else {
                throw Self.replacedWhileOpening(directory)
            }
        } else {
            let descriptor = open(lockPath, O_RDONLY | O_CLOEXEC)
            var info = stat()
            guard descriptor >= 0, fstat(descriptor, &info) == 0 else {
                let code = errno
                if descriptor >= 0 { close(descriptor) }
                throw LMDBError(
                    code: code, operation: "opening \(directory)", message: "cannot open its lock file: \(String(cString: strerror(code)))")
            }
            (device, inode, lockDescriptor, dataDescriptor) = (UInt64(info.st_dev), UInt64(info.st_ino), descriptor, -1)
        }
        dataDescriptor = open(directory + "/data.mdb", O_RDONLY | O_CLOEXEC)
        guard dataDescriptor >= 0 else {
            let code = errno
            throw LMDBError(code: code, operation: "opening \(directory)", message: "cannot open its data file: \(String(cString: strerror(code)))")
        }
        // Alone with the data file, or beside processes that hold this same lock file: share the data file.
        // A process that is ending holds the data file a moment longer than the lock file (the kernel
        // closes its descriptors in order): look again for a while before taking it for a process of
        // another lock file.
        var pause: UInt32 = 500
        for attempt in 0..<10 {
            if flockRetrying(LOCK_EX | LOCK_NB) == 0 || othersHoldLockFile() {
                _ = flockRetrying(LOCK_SH)
                return
            }
            if attempt < 9 {
                usleep(pause)
                pause *= 2
            }
        }
        throw Self.lockFileOfOthersGone(directory)
    }

    /// Throws when another process has the environment in `directory` open: it holds the data file's
    /// `flock`, or LMDB's lock on the lock file. (Call only when this process does not have it open: the
    /// probe closes a descriptor of the lock file, which would drop this process's own locks on it.)
    static func checkUnused(directory: String) throws {
        func inUse() -> LMDBError {
            LMDBError(
                code: EBUSY, operation: "taking the store at \(directory) out of use",
                message: "a process has it open; stop every process that uses it, then try again")
        }
        let data = open(directory + "/data.mdb", O_RDONLY | O_CLOEXEC)
        if data >= 0 {
            defer { close(data) }
            if flock(data, LOCK_EX | LOCK_NB) != 0 { throw inUse() }
        }
        let lock = open(directory + "/lock.mdb", O_RDONLY | O_CLOEXEC)
        if lock >= 0 {
            defer { close(lock) }
            var probe = flock()
            probe.l_type = Int16(F_WRLCK)
            probe.l_whence = Int16(SEEK_SET)
            probe.l_len = 1
            if fcntl(lock, F_GETLK, &probe) == 0 && probe.l_type != Int16(F_UNLCK) { throw inUse() }
        }
    }

    /// Closes the descriptors without unlocking: in a child forked after the environment was opened,
    /// the data file's lock is the parent's.
    deinit {
        if dataDescriptor >= 0 { close(dataDescriptor) }
        if lockDescriptor >= 0 { close(lockDescriptor) }
    }

    /// Stops sharing the data file (before the environment is closed, or once this process stopped
    /// using it): unlocks it, then closes the descriptor.
    func releaseDataFile() {
        guard dataDescriptor >= 0 else { return }
        _ = flockRetrying(LOCK_UN)
        close(dataDescriptor)
        dataDescriptor = -1
    }

    /// Closes the lock file's descriptor (once LMDB has closed its own), which drops every `fcntl`
    /// lock this process holds on the file.
    func closeLockFile() {
        if lockDescriptor >= 0 { close(lockDescriptor) }
        lockDescriptor = -1
    }

    /// An error when the lock file at the path is no longer the one this process holds.
    func replacement() -> LMDBError? {
        var info = stat()
        guard stat(lockPath, &info) != 0 || UInt64(info.st_dev) != device || UInt64(info.st_ino) != inode else { return nil }
        return replacedError
    }

    /// What a process whose lock file was deleted or replaced is told, at the write that noticed and at every call after it.
    var replacedError: LMDBError {
        let directory = String(lockPath.dropLast("/lock.mdb".count))
        return LMDBError(
            code: Self.replacedCode, operation: "using the store at \(directory)",
            message:
                "its lock file (lock.mdb) was deleted or replaced while this process had the store open, so another process could write at the same time and damage it; this process stopped using the store, and nothing it acknowledged is lost: restart it"
        )
    }

    /// `ESTALE`: the lock file this process holds is no longer the store's.
    static let replacedCode = ESTALE

    private func flockRetrying(_ operation: Int32) -> Int32 {
        while true {
            let rc = flock(dataDescriptor, operation)
            if rc == 0 || errno != EINTR { return rc }
        }
    }

    /// Whether another process holds an LMDB lock on the lock file this process opened (every process
    /// with the environment open holds a read lock on its first byte).
    private func othersHoldLockFile() -> Bool {
        var probe = flock()
        probe.l_type = Int16(F_WRLCK)
        probe.l_whence = Int16(SEEK_SET)
        probe.l_start = 0
        probe.l_len = 1
        guard fcntl(lockDescriptor, F_GETLK, &probe) == 0 else { return false }
        return probe.l_type != Int16(F_UNLCK)
    }

    private static func replacedWhileOpening(_ directory: String) -> LMDBError {
        LMDBError(
            code: replacedCode, operation: "opening the store at \(directory)",
            message: "its lock file (lock.mdb) was deleted or replaced while it was being opened; open it again")
    }

    private static func lockFileOfOthersGone(_ directory: String) -> LMDBError {
        LMDBError(
            code: replacedCode, operation: "opening the store at \(directory)",
            message:
                "other processes have the store open through a lock file (lock.mdb) that was deleted or replaced, so opening it now could let two writers damage it; stop those processes (each stops writing once it notices), then open it again"
        )
    }
}
