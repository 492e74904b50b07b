#if canImport(Glibc)
    import Glibc
#endif

/// A process-local reader/writer lock: every transaction holds it shared, and
/// remapping the file (growing the map, or adopting another process's growth)
/// holds it exclusive, because `mdb_env_set_mapsize` must not run while any
/// transaction of this process is using the old mapping.
/// Writer-preferring, so a resize is not starved by a stream of readers.
final class ResizeLock: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    init() {
        lock = .allocate(capacity: 1)
        var attr = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attr)
        pthread_rwlockattr_setkind_np(&attr, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        pthread_rwlock_init(lock, &attr)
        pthread_rwlockattr_destroy(&attr)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    func lockShared() { pthread_rwlock_rdlock(lock) }
    func lockExclusive() { pthread_rwlock_wrlock(lock) }
    func unlock() { pthread_rwlock_unlock(lock) }
}
