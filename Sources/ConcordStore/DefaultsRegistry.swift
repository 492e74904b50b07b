import Synchronization

/// Registered defaults: per process, in memory, never stored and never synced.
final class DefaultsRegistry: Sendable {
    private let table = Mutex<[String: [String: Value]]>([:])
    /// Changes with every registration, so caches of what reads return know to look again.
    let generation = Atomic<Int>(0)

    func register(_ values: [String: Value], suite: String) {
        table.withLock { $0[suite, default: [:]].merge(values) { _, new in new } }
        generation.add(1, ordering: .releasing)
    }

    func value(suite: String, key: String) -> Value? {
        table.withLock { $0[suite]?[key] }
    }
}
