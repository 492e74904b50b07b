import Synchronization

/// The process-wide table of shared per-key references: one per store directory, suite, key,
/// value type and coding, held weakly, so every wrapper of a key shares one cache and one
/// observation.
enum StoredReferenceRegistry {
    struct Identity: Hashable {
        let directory: String
        let suite: String
        let key: String
        let type: ObjectIdentifier
        let coding: String
    }

    private struct Entry {
        weak var reference: AnyObject?
        let notify: @Sendable () -> Void
    }

    private struct Table {
        var entries: [Identity: Entry] = [:]
        var insertionsSincePurge = 0
    }

    private static let table = Mutex(Table())

    static func reference<Value>(suite: Suite, key: String, coding: ValueCoding<Value>) -> StoredReference<Value> {
        let identity = Identity(directory: suite.store.directory, suite: suite.name, key: key,
                                type: ObjectIdentifier(Value.self), coding: coding.identifier)
        if let found = table.withLock({ $0.entries[identity]?.reference as? StoredReference<Value> }) { return found }
        // Made outside the lock: a new reference subscribes to the store's change hub.
        let made = StoredReference(suite: suite, key: key, coding: coding)
        return table.withLock { t in
            if let found = t.entries[identity]?.reference as? StoredReference<Value> { return found }
            t.insertionsSincePurge += 1
            if t.insertionsSincePurge >= 64 {
                t.entries = t.entries.filter { $0.value.reference != nil }
                t.insertionsSincePurge = 0
            }
            t.entries[identity] = Entry(reference: made, notify: { [weak made] in made?.invalidateAndNotify() })
            return made
        }
    }

    /// Tells every live reference to `key` of `suite` (whatever its type) that what reads return
    /// may have changed without a commit (registered defaults changed).
    static func notifyAll(directory: String, suite: String, keys: Set<String>) {
        let targets = table.withLock { t in
            t.entries.filter { $0.key.directory == directory && $0.key.suite == suite && keys.contains($0.key.key) }.map(\.value.notify)
        }
        for notify in targets { notify() }
    }
}
