import Synchronization

/// Registered defaults: per process, in memory, never stored and never synced.
package final class DefaultsRegistry: Sendable {
    private let table = Mutex<[String: [String: Value]]>([:])
    private let listeners = Mutex<[@Sendable (_ suite: String, _ keys: Set<String>) -> Void]>([])
    /// Changes with every registration, so caches of what reads return know to look again.
    package let generation = Atomic<Int>(0)

    func register(_ values: [String: Value], suite: String) {
        table.withLock { $0[suite, default: [:]].merge(values) { _, new in new } }
        generation.add(1, ordering: .releasing)
        let toTell = listeners.withLock { $0 }
        for listener in toTell { listener(suite, Set(values.keys)) }
    }

    package func value(suite: String, key: String) -> Value? {
        table.withLock { $0[suite]?[key] }
    }

    /// Calls `listener` after every registration (with the suite and the keys registered), for as
    /// long as this registry lives: the wrappers use it to tell their observers.
    package func addListener(_ listener: @escaping @Sendable (_ suite: String, _ keys: Set<String>) -> Void) {
        listeners.withLock { $0.append(listener) }
    }
}
