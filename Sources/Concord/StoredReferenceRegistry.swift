import Synchronization

/// The process-wide table of shared per-key references: one per store directory, suite, key and
/// value type, held weakly, so every wrapper of a key shares one cache and one observation.
enum StoredReferenceRegistry {
    struct Identity: Hashable {
        let directory: String
        let suite: String
        let key: String
        let type: ObjectIdentifier
    }

    private struct Entry {
        weak var reference: AnyObject?
        let notify: @Sendable () -> Void
    }

    private struct WeakDefaults { weak var registry: DefaultsRegistry? }

    private struct Table {
        var entries: [Identity: Entry] = [:]
        var insertionsSincePurge = 0
        /// The registered-defaults tables this registry listens to (one per replica opened).
        var listening: [ObjectIdentifier: WeakDefaults] = [:]
    }

    private static let table = Mutex(Table())

    static func reference<Value>(suite: Suite, key: String) -> StoredReference<Value> {
        let identity = Identity(directory: suite.store.directory, suite: suite.name, key: key, type: ObjectIdentifier(Value.self))
        if let found = table.withLock({ $0.entries[identity]?.reference as? StoredReference<Value> }) { return found }
        // Made outside the lock: a new reference subscribes to the store's change hub.
        let made = StoredReference<Value>(suite: suite, key: key)
        let defaults = suite.core.defaults
        let (reference, listen) = table.withLock { t -> (StoredReference<Value>, Bool) in
            if let found = t.entries[identity]?.reference as? StoredReference<Value> { return (found, false) }
            t.insertionsSincePurge += 1
            if t.insertionsSincePurge >= 64 {
                t.entries = t.entries.filter { $0.value.reference != nil }
                t.listening = t.listening.filter { $0.value.registry != nil }
                t.insertionsSincePurge = 0
            }
            t.entries[identity] = Entry(reference: made, notify: { [weak made] in made?.invalidateAndNotify() })
            let id = ObjectIdentifier(defaults)
            guard t.listening[id]?.registry !== defaults else { return (made, false) }
            t.listening[id] = WeakDefaults(registry: defaults)
            return (made, true)
        }
        if listen {
            let directory = suite.store.directory
            defaults.addListener { suite, keys in notifyAll(directory: directory, suite: suite, keys: keys) }
        }
        return reference
    }

    /// Tells every live reference to `keys` of `suite` (whatever its type) that what reads return
    /// may have changed without a commit (registered defaults changed).
    static func notifyAll(directory: String, suite: String, keys: Set<String>) {
        let targets = table.withLock { t in
            t.entries.filter { $0.key.directory == directory && $0.key.suite == suite && keys.contains($0.key.key) }.map(\.value.notify)
        }
        for notify in targets { notify() }
    }
}
