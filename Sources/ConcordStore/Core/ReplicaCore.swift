import Foundation
import LMDB
import Synchronization

/// What one process shares for one replica directory: the environment, layout, identity,
/// registered defaults and the change hub — and the only way into its transactions.
package final class ReplicaCore: Sendable {
    package let path: String
    package let env: Environment
    package let layout: StoreLayout
    package let replicaID: ReplicaID
    let formatVersion: UInt32
    package let options: Store.Options
    let signal: ChangeSignal
    package let defaults = DefaultsRegistry()
    package let schemas = RegisteredSchemas()
    /// The keys of encrypted suites this process holds for the replica.
    package let keyring = SuiteKeyring()
    package let hub: ChangeHub
    /// The thread inside a write transaction of this replica, if any (`pthread_t`, 0 for none):
    /// a store call from that thread would deadlock (a second write) or read a stale snapshot.
    private let writingThread = Atomic<UInt>(0)
    /// Shares commits among this process's threads writing at once.
    let group = GroupCommit()
    /// The reserved suite's declarations the last commit knew, for the next write transaction.
    let declarationCache = DeclarationCache()
    /// Set by a commit after which the journal is due for compaction; the write call that takes it runs the pass.
    private let compactionDue = Atomic<Bool>(false)

    /// A random identity of this process, stored in the journal entries it writes.
    package static let processToken: [UInt8] = {
        var random = SystemRandomNumberGenerator()
        var out = ByteWriter(capacity: 16)
        out.u64(random.next())
        out.u64(random.next())
        return out.bytes
    }()

    /// The directories this process opened; an entry goes with its core.
    private static let registry = DirectoryRegistry(keepsEntriesUntilReleased: false)

    /// This process's core of the replica at `path`, opened when it has none. A core whose last
    /// reference went is no longer found, even while another thread still runs its deinitializer: the
    /// new core may briefly share the directory with it, which is safe because a core holds no lock of
    /// its own on the files (its notify file descriptor takes none) and `Environment.open` returns the
    /// old core's environment, or waits until that has closed.
    /// `given` says the caller asked for `options` (else they are the defaults, used only to open the
    /// replica when this process has it not open yet). The options do not come as a `Store.Options?`:
    /// copying one goes through the generic optional's value witness, which makes a fresh process
    /// instantiate the optional's metadata at run time on its first open.
    static func shared(path: String, options asked: Store.Options, given: Bool, create: Bool) throws -> ReplicaCore {
        let (directory, created) = try StoreDirectory.prepare(path, create: create)
        return try registry.withEntries { entries in
            if let core = entries.entry(directory)?.object as? ReplicaCore, core.env.isUsableInThisProcess {
                if given, case let differences = asked.differences(from: core.options), !differences.isEmpty {
                    throw ConcordError.otherOptions(path: directory, differences: differences)
                }
                if !asked.suiteKeys.isEmpty { core.keyring.add(asked.suiteKeys) }
                return core
            }
            return try entries.register(path: directory) { _ in
                do { return try ReplicaCore(path: directory, options: asked) } catch {
                    throw created ? StoreDirectory.abandon(directory, after: error) : error
                }
            }
        }
    }

    private init(path: String, options: Store.Options) throws {
        StoreDamage.installAdvice()
        self.path = path
        self.options = options
        if !options.suiteKeys.isEmpty { keyring.add(options.suiteKeys) }
        var envOptions = Environment.Options()
        envOptions.mapSize = options.initialMapSize
        switch options.durability {
        case .full: envOptions.durability = .full
        case .noMetaSync: envOptions.durability = .noMetaSync
        case .none: envOptions.durability = .none
        }
        let env = try mapLMDBErrors(path: path) { try Environment.open(directory: path, options: envOptions, resolved: true) }
        self.env = env
        let (layout, replica, format) = try mapLMDBErrors(path: path) { () throws -> (StoreLayout, ReplicaID, UInt32) in
            // The identity first: a store of a newer format is refused before anything could be created
            // in it. A store that has every database (all but a new one, or one of a format before 7, which
            // has no `expiries`) opens them all in one read-only transaction.
            let others = ["records", "journal", "peers", "conflicts", "marks", "expiries"]
            let present = try env.openDatabasesIfPresent(named: ["meta"] + others)
            let meta = try env.database(named: "meta")
            let (replica, format) = try StoreIdentity.stamp(env: env, meta: meta, path: path)
            if !present { try env.openDatabases(named: others) }
            let layout = StoreLayout(
                meta: meta, records: try env.database(named: "records"), journal: try env.database(named: "journal"),
                peers: try env.database(named: "peers"), conflicts: try env.database(named: "conflicts"),
                marks: try env.database(named: "marks"), expiries: try env.database(named: "expiries"))
            return (layout, replica, format)
        }
        self.layout = layout
        self.replicaID = replica
        self.formatVersion = format
        self.signal = try ChangeSignal(directory: path)
        let box = WeakBox()
        let defaults = self.defaults
        self.hub = ChangeHub(
            notifyPath: signal.path,
            readJournal: { since in
                guard let core = box.core else { return [] }
                return try core.journalEntries(after: since, suite: nil, limit: ChangeHub.pageSize)
            },
            currentSeq: { try box.core?.snapshot { $0.lastSeq } ?? 0 },
            makeChange: { entry, now, expired in
                try Change(
                    entry, origin: expired ? .expired : ChangeOrigin(entry.source),
                    registeredDefault: defaults.value(suite: entry.suite, key: entry.key), now: now)
            },
            readExpiries: { after, upTo in try box.core?.snapshot { try $0.expiries(after: after, upTo: upTo) } ?? ChangeHub.Expiries() },
            wallClock: options.clock.read)
        box.core = self
    }

    // MARK: - Transactions

    /// Refuses a store call made from inside a write transaction of this replica on the same thread.
    private func checkNotInsideWrite() throws {
        if writingThread.load(ordering: .relaxed) == UInt(pthread_self()) { throw ConcordError.reentrantCall(path: path) }
    }

    /// A read-only snapshot as raw LMDB (for the store's own reads).
    package func read<R>(_ body: (Transaction) throws -> R) throws -> R {
        try checkNotInsideWrite()
        return try mapLMDBErrors(path: path) { try env.read(body) }
    }

    /// A read-only snapshot seen through `ReplicaSnapshot`.
    package func snapshot<R>(_ body: (ReplicaSnapshot) throws -> R) throws -> R {
        try read { txn in try body(try ReplicaSnapshot(txn: txn, layout: layout, replica: replicaID, path: path)) }
    }

    /// Runs `body` in a write transaction, durable when this returns; wakes observers in every
    /// process after a commit that changed something.
    ///
    /// Threads of this process writing at once share commits (`GroupCommit`). When one of the
    /// closures of a shared commit throws, the transaction is aborted and runs again without it (the
    /// others' closures run again), so its caller gets its error and the others' changes commit.
    ///
    /// When a commit left the journal due for compaction, one of the calls it committed runs the pass
    /// after the commit, before it returns (`JournalCompaction`).
    @discardableResult
    package func write<R>(_ body: (ReplicaTransaction) throws -> R) throws -> R {
        try checkNotInsideWrite()
        defer { compactJournalIfDue() }
        return try withoutActuallyEscaping(body) { body in
            var result: R?
            let pending = GroupCommit.Pending { transaction in result = try body(transaction) }
            try group.perform(pending, commit: commit)
            return result!
        }
    }

    /// Writes and commits `batch` in one LMDB write transaction, setting each write's error.
    private func commit(_ batch: [GroupCommit.Pending]) {
        var remaining = batch
        while !remaining.isEmpty {
            var failed: Int?
            do {
                try commitAll(remaining, failed: &failed)
                return
            } catch {
                guard let failed, remaining.count > 1 else {
                    for pending in remaining { pending.error = error } // nothing of these was committed
                    return
                }
                remaining[failed].error = error
                remaining.remove(at: failed)
            }
        }
    }

    /// Runs every closure of `batch` in one write transaction and commits it; when a closure throws,
    /// sets `failed` to its index and rethrows (the transaction is aborted).
    private func commitAll(_ batch: [GroupCommit.Pending], failed: inout Int?) throws {
        let thread = UInt(pthread_self())
        var journaled = false
        var known: KnownDeclarations?
        let changed = try mapLMDBErrors(path: path) {
            try env.write { txn -> Bool in
                writingThread.store(thread, ordering: .relaxed)
                defer { writingThread.store(0, ordering: .relaxed) }
                var changed = false
                known = nil
                for (index, pending) in batch.enumerated() {
                    failed = index
                    let transaction = try ReplicaTransaction(txn: txn, core: self, nowMilliseconds: options.clock.read(), carrying: known)
                    try pending.run(transaction)
                    try transaction.finish()
                    known = transaction.known
                    if transaction.changeCount > 0 { journaled = true }
                    if transaction.changeCount > 0 || transaction.cursorsChanged { changed = true }
                }
                failed = nil
                journaled = try journaled && JournalCompaction.isDue(txn, layout)
                return changed
            }
        }
        if let known { declarationCache.publish(known) }
        if journaled { compactionDue.store(true, ordering: .releasing) }
        if changed {
            signal.touch()
            hub.wake()
        }
    }

    /// Runs a compaction pass when a commit left the journal due for one, in steps of one write
    /// transaction each. Its errors go to `UnhandledErrors`: the writes that made it due have committed.
    private func compactJournalIfDue() {
        guard compactionDue.exchange(false, ordering: .acquiringAndReleasing) else { return }
        do {
            var after: UInt64 = 0
            while true {
                let next = try mapLMDBErrors(path: path) {
                    try env.write { txn in
                        try JournalCompaction.step(try ReplicaSnapshot(txn: txn, layout: layout, replica: replicaID, path: path), after: after)
                    }
                }
                guard let next else { return }
                after = next
            }
        } catch {
            UnhandledErrors.report(error)
        }
    }

    /// The live journal entries after `seq` (of `suite`, or of every suite), at most `limit`: an
    /// encrypted suite's opened, with their keys' names, when this process holds the suite's key,
    /// and left out when it does not (nothing of them is readable here). An entry of a policy
    /// contribution carries the key's record as this snapshot holds it (every replica's contribution
    /// joined), so observers see the key's value, not one replica's part of it.
    func journalEntries(after seq: UInt64, suite: String?, limit: Int) throws -> [JournalEntry] {
        try snapshot { s in
            var out: [JournalEntry] = []
            guard limit > 0 else { return out }
            var sealings: [String: SuiteSealing?] = [:]
            try s.scanJournal(after: seq) { entry in
                guard suite == nil || entry.suite == suite else { return true }
                guard entry.record.isSealed else {
                    out.append(entry)
                    return out.count < limit
                }
                let known = sealings[entry.suite]
                // Without the suite's key (or with another), the entry is left out.
                let found = known ?? (try? s.sealing(suite: entry.suite, keyring: keyring))
                if known == nil { sealings[entry.suite] = .some(found) }
                guard let sealing = found else { return true }
                let reader = RowReader(suite: entry.suite, key: entry.key, path: path)
                let name: String
                var record: Record
                do { (name, record) = try sealing.openStored(entry.record, storedKey: entry.key) } catch { throw reader.undecodable(error) }
                if !record.isPlain, let joined = try s.namedRecord(suite: entry.suite, key: name, keyring: keyring) { record = joined.record }
                out.append(JournalEntry(seq: entry.seq, suite: entry.suite, key: name, record: record, source: entry.source))
                return out.count < limit
            }
            return out
        }
    }
}

/// Lets the hub's closures reach the core without keeping it alive.
private final class WeakBox: @unchecked Sendable {
    weak var core: ReplicaCore?
}
