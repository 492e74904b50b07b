import Synchronization

/// Registered defaults: per process, in memory, never stored and never synced.
package final class DefaultsRegistry: Sendable {
    /// Made on the first registration: a store nobody registers defaults in never makes the Swift
    /// runtime instantiate a dictionary's type (its conformance lookups are a third of a fresh open).
    private let table = Mutex<Table?>(nil)
    private final class Table {
        var suites: [String: [String: Value]] = [:]
    }
    /// Boxed, so the array's type names no `Set<String>` whose conformances the runtime would look up at open.
    private let listeners = Mutex<[Listener]>([])
    private final class Listener: Sendable {
        let call: @Sendable (_ suite: String, _ keys: Set<String>) -> Void
        init(_ call: @escaping @Sendable (_ suite: String, _ keys: Set<String>) -> Void) { self.call = call }
    }
    /// Changes with every registration, so caches of what reads return know to look again.
    package let generation = Atomic<Int>(0)

    func register(_ values: [String: Value], suite: String) {
        table.withLock { table in
            let t = table ?? Table()
            t.suites[suite, default: [:]].merge(values) { _, new in new }
            table = t
        }
        generation.add(1, ordering: .releasing)
        let toTell = listeners.withLock { $0 }
        for listener in toTell { listener.call(suite, Set(values.keys)) }
    }

    package func value(suite: String, key: String) -> Value? {
        table.withLock { $0?.suites[suite]?[key] }
    }

    /// Calls `listener` after every registration (with the suite and the keys registered), for as
    /// long as this registry lives: the wrappers use it to tell their observers.
    package func addListener(_ listener: @escaping @Sendable (_ suite: String, _ keys: Set<String>) -> Void) {
        listeners.withLock { $0.append(Listener(listener)) }
    }
}
