import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Counts `fork()`s of this process, so an environment opened before a fork
/// refuses to be used in the child (LMDB handles must not cross `fork()`).
enum ForkGuard {
    private static let generationValue = Atomic<Int>(0)
    private static let installed: Void = {
        pthread_atfork(nil, nil, { ForkGuard.childDidFork() })
    }()

    static func install() { _ = installed }
    static var generation: Int { generationValue.load(ordering: .relaxed) }
    static func childDidFork() { generationValue.add(1, ordering: .relaxed) }
}
