/// The symbols a user meets first — opening a store, reading and writing, observing, syncing,
/// operations — whose documentation must say what each argument is, what comes back and what can
/// go wrong (`- Parameters`, `- Returns`, `- Throws`, as far as the symbol takes, returns or throws).
enum ImportantSymbols {
    /// The symbol graph directories (by module) that hold these symbols.
    static let modules: Set<String> = ["Concord", "ConcordHub"]

    /// Paths as the symbol graph spells them: type, then member with its argument labels.
    static let paths: Set<String> = [
        // Opening a store, and suites.
        "Store.init(path:options:)",
        "Store.temporary(options:)",
        "Store.suite(_:)",
        "Store.suite(_:schema:)",
        // Reading and writing.
        "Suite.get(_:as:)",
        "Suite.set(_:forKey:)",
        "Suite.set(_:forKey:expiresAt:)",
        "Suite.set(_:forKey:expiresAfter:)",
        "Suite.setDeviceLocal(_:forKey:)",
        "Suite.remove(_:)",
        "Suite.reset()",
        "Suite.batch(_:)",
        "Suite.update(_:as:_:)",
        "Suite.increment(_:by:)",
        "Suite.register(defaults:)",
        "Suite.declare(_:forKey:)",
        "Suite.get(_:)",
        "Suite.set(_:for:)",
        "Suite.update(_:_:)",
        "Key.init(_:default:suite:policy:)",
        "Stored.init(wrappedValue:_:in:policy:)",
        "Stored.set(_:)",
        "Stored.update(_:)",
        "Stored.reset()",
        "Exclusive.claim(_:ifCurrent:)",
        "Exclusive.renew()",
        "Exclusive.release(_:)",
        "Exclusive.observeLoss(_:)",
        // Observing.
        "Suite.values(of:as:)",
        "Suite.changes(for:)",
        "ValueObservation.start(onError:onChange:)",
        "Store.changes(after:suite:limit:)",
        "UpdateHost.init(_:scope:onError:render:)",
        // Syncing and conflicts.
        "Synchronizer.sync(_:_:dryRun:)",
        "Synchronizer.pull(from:into:dryRun:)",
        "Store.exportBundle(to:for:selection:onProgress:)",
        "Store.importBundle(at:dryRun:onProgress:)",
        "Store.conflicts(suite:)",
        "Store.clearConflicts(suite:)",
        "Store.collectTombstones(retention:)",
        "Store.forgetPeer(_:)",
        "Store.peerStatus()",
        "Store.waitUntilAcknowledged(by:timeout:)",
        "LiveSync.waitUntilAcknowledged(timeout:)",
        "Hub.init(_:account:)",
        "HubSynchronizer.sync(_:_:dryRun:)",
        // Operations.
        "Store.backup(to:compact:onProgress:)",
        "Store.check()"
    ]
}
