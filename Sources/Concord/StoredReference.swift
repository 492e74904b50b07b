import Foundation
import Observation
import Synchronization

/// The shared, observable reference behind every wrapper of one key: one per store, suite, key
/// and value type in a process (`@Stored`, `suite[key]`, settings and exclusive choices all share it).
///
/// Reading is cheap: the decoded value is cached together with the commit stamp of the snapshot
/// it was read from, and reused while `store.commitStamp` (LMDB's last committed transaction, read
/// from shared memory without a transaction) still equals it. Any commit by any process changes
/// the stamp, so a read right after another process's write sees that write.
///
/// It is `Observable`: code that read it inside `withObservationTracking` is told when the key
/// changes — written through this reference, another reference, another process, or a sync.
/// The notification comes after the change is committed, so `onChange` can already read the new value.
/// Every write goes through the suite's one write path, ``Suite/write(_:declaring:_:)``.
@usableFromInline
final class StoredReference<T: StorableValue>: Observable, Sendable {
    /// The suite holding the key.
    let suite: Suite
    /// The key's name in the suite.
    let key: String

    @usableFromInline let stamps: StampReader
    @usableFromInline let registrar = ObservationRegistrar()
    /// Made once: a key path into a generic class is costly to instantiate on every read.
    @usableFromInline let observedKeyPath: KeyPath<StoredReference<T>, Int> & Sendable
    @usableFromInline let state = Mutex(State())
    private let subscription = Mutex<ObservationToken?>(nil)

    /// What the suite holds for the key.
    @usableFromInline enum Slot: Sendable {
        case value(T)
        case absent
        case failed(ConcordError)
    }

    @usableFromInline struct State: Sendable {
        /// The commit stamp `stored` was read at; `Int.min` when nothing is cached.
        @usableFromInline var snapshot = Int.min
        @usableFromInline var stored: Slot = .absent
        /// When `stored` expires (wall-clock milliseconds since 1970); `UInt64.max` when it does not.
        @usableFromInline var storedExpiry = UInt64.max
        /// The registered-defaults generation `registered` was looked up at; `Int.min` when nothing is cached.
        @usableFromInline var defaultsGeneration = Int.min
        /// What the registered-default layer answers (`.registeredDefault`, `.absent` or `.failed`).
        @usableFromInline var registered: StoredLookup<T> = .absent
        /// Observers were told about every change up to this journal seq.
        var notifiedSeq: UInt64 = 0
        /// Writes through this reference that have not returned yet; while there are any, the
        /// change hub's announcements wait in `deferredSeq`, for the writer to make after its commit.
        var writesInFlight = 0
        var deferredSeq: UInt64 = 0
        var lastError: ConcordError?
        var reportedSnapshot = Int.min
        var reportedGeneration = Int.min

        @usableFromInline init() {}

        /// The cached answer, if it is still current.
        @inlinable func cached(snapshot current: Int, generation: Int, clock: StampReader) -> StoredLookup<T>? {
            guard snapshot == current, storedExpiry == .max || clock.wallClock() < storedExpiry else { return nil }
            switch stored {
            case .value(let value): return .stored(value)
            case .failed(let error): return .failed(error)
            case .absent: return defaultsGeneration == generation ? registered : nil
            }
        }
    }

    /// The reference for `key` of `suite`, shared process-wide by everything that reads or writes
    /// the key as a `T`.
    static func shared(suite: Suite, key: String) -> StoredReference {
        StoredReferenceRegistry.reference(suite: suite, key: key)
    }

    init(suite: Suite, key: String) {
        self.suite = suite
        self.key = key
        self.stamps = suite.store.stampReader
        self.observedKeyPath = \StoredReference<T>.anchor
        do {
            let token = try suite.changes(for: key).start(
                onError: { [weak self] error in
                    self?.record(error.during("observe", suite: suite.name, key: key), report: true)
                }
            ) { [weak self] change in self?.storeDidChange(change) }
            subscription.withLock { $0 = token }
        } catch {
            record(ConcordError.wrapping(error).during("observe", suite: suite.name, key: key), report: true)
        }
    }

    /// What observation tracks; its value never matters.
    var anchor: Int { 0 }

    // MARK: - Reading

    /// What a read finds now: a stored value, a registered default, nothing, or an error.
    ///
    /// Opens no transaction while nothing was committed (by any process) and no default was
    /// registered (in this process) since the cached answer was read.
    @inlinable
    func lookup() -> StoredLookup<T> {
        registrar.access(self, keyPath: observedKeyPath)
        let commit = stamps.commitStamp()
        let generation = stamps.registeredDefaultsGeneration()
        if let hit = state.withLock({ $0.cached(snapshot: commit, generation: generation, clock: stamps) }) { return hit }
        return refresh(generation: generation)
    }

    /// The stored value, else the registered default, else `defaultValue`.
    /// A value of the wrong type reads as `defaultValue` and is reported once (to the unhandled-error handler).
    @inlinable
    func value(default defaultValue: T) -> T {
        lookup().value(or: defaultValue)
    }

    /// Whether a value is stored for the key (registered defaults do not count).
    @inlinable
    var isSet: Bool { lookup().isStored }

    /// The last error reading, writing or observing this key met, if any.
    var lastError: ConcordError? { state.withLock { $0.lastError } }

    /// Reads the key in a transaction (and its registered default, when nothing is stored) and caches the answer.
    @usableFromInline func refresh(generation: Int) -> StoredLookup<T> {
        let read: SnapshotRead
        do { read = try suite.snapshotRead(forKey: key) } catch {
            let failure = ConcordError.wrapping(error).during("read", suite: suite.name, key: key)
            let commit = stamps.commitStamp()
            let report = state.withLock { s -> Bool in
                defer { s.reportedSnapshot = commit }
                return s.reportedSnapshot != commit
            }
            record(failure, report: report)
            return .failed(failure)
        }
        let slot: Slot
        if let stored = read.value {
            do { slot = .value(try T(storedValue: stored)) } catch { slot = .failed(readFailure(error, stored: stored)) }
        } else {
            slot = .absent
        }
        let reportStored = state.withLock { s -> Bool in
            if read.snapshot >= s.snapshot {
                s.snapshot = read.snapshot
                s.stored = slot
                s.storedExpiry = read.expiry ?? .max
            }
            guard case .failed = slot, s.reportedSnapshot != read.snapshot else { return false }
            s.reportedSnapshot = read.snapshot
            return true
        }
        switch slot {
        case .value(let value): return .stored(value)
        case .failed(let failure):
            record(failure, report: reportStored)
            return .failed(failure)
        case .absent: break
        }

        let registered: StoredLookup<T>
        if let raw = suite.registeredDefault(forKey: key) {
            do { registered = .registeredDefault(try T(storedValue: raw)) } catch { registered = .failed(readFailure(error, stored: raw)) }
        } else {
            registered = .absent
        }
        let reportRegistered = state.withLock { s -> Bool in
            if generation >= s.defaultsGeneration {
                s.defaultsGeneration = generation
                s.registered = registered
            }
            guard case .failed = registered, s.reportedGeneration != generation else { return false }
            s.reportedGeneration = generation
            return true
        }
        if case .failed(let failure) = registered { record(failure, report: reportRegistered) }
        return registered
    }

    // MARK: - Writing

    /// Stores `value` durably (`nil` of an optional removes the key). Observers are told after the commit.
    /// With `policy`, the key's merge policy is declared in the same transaction (`Key(…, policy:)`).
    ///
    /// - Returns: The version written, or `nil` when nothing was.
    @discardableResult
    func set(_ value: T, declaring policy: MergePolicy? = nil) throws -> Version? {
        let stored: Value?
        do { stored = try value.storedValue() } catch { throw recordThrown("write", ConcordError.storing(error, as: T.self, key: key)) }
        return try write(stored == nil ? "remove" : "write", declaring: policy) { _ in (stored.map { .set($0, expiry: nil) } ?? .remove, ()) }
            .version
    }

    /// Removes the stored value (a tombstone, so the delete syncs); reads fall back to the defaults.
    ///
    /// - Returns: The tombstone's version, or `nil` when the key held no value.
    @discardableResult
    func remove() throws -> Version? {
        try write("remove") { _ in (.remove, ()) }.version
    }

    /// Reads, changes and writes the key in one write transaction, so concurrent updates from any
    /// process never lose one another. `body` starts from what a read returns (stored value,
    /// registered default, or `defaultValue`). It runs inside the write transaction, so it must not
    /// call the store (that throws ``ConcordError`` `.reentrantCall`), and it runs again from the start only
    /// when the store's memory map had to grow during the transaction or another write sharing its
    /// group commit failed (never on conflict: writers take turns; see ``Suite/update``), so it should
    /// only compute from its argument.
    /// Under a merge policy the change is what syncs (a counter's difference as an increment, a set's
    /// added and removed members), so concurrent updates on other replicas combine with it.
    ///
    @discardableResult
    func update<R>(default defaultValue: T, declaring policy: MergePolicy? = nil, _ body: (inout T) throws -> R) throws -> R {
        let suite = self.suite
        let key = self.key
        return try write("write", declaring: policy) { k in
            var current: T
            if let stored = try k.value() {
                current = try T(storedValue: stored)
            } else if let raw = suite.registeredDefault(forKey: key) {
                current = try T(storedValue: raw)
            } else {
                current = defaultValue
            }
            let result = try body(&current)
            return (.update(try current.storedValue()), result)
        }.result
    }

    /// Writes the key through the suite's one write path (``Suite/write(_:declaring:_:)``), telling
    /// this reference's observers after the commit, when something was written. Concord's errors are
    /// kept as `lastError` and thrown naming the operation, suite and key; any other (what a closure
    /// threw) is thrown as it is.
    func write<R>(
        _ operation: String, declaring policy: MergePolicy? = nil, _ decide: (KeyInWrite) throws -> (KeyWrite, R)
    ) throws -> KeyWritten<R> {
        state.withLock { $0.writesInFlight += 1 }
        let written: KeyWritten<R>
        do { written = try suite.write(key, declaring: policy, decide) } catch {
            finishWrite(committed: nil)
            throw recordThrown(operation, error)
        }
        finishWrite(committed: written.seq)
        return written
    }

    // MARK: - Observation

    // Each change is announced once, after it committed. A write through this reference announces
    // its own commit before it returns. The change hub, woken by the same commit on another thread,
    // may deliver it first: while a write is in flight, the hub's announcements are deferred to the
    // writer, which makes them together with its own (or alone, if its transaction failed).

    private func finishWrite(committed seq: UInt64?) {
        let target = state.withLock { s -> UInt64 in
            s.writesInFlight -= 1
            var target = seq ?? 0
            if s.writesInFlight == 0 {
                target = max(target, s.deferredSeq)
                s.deferredSeq = 0
            }
            return target
        }
        if target > 0 { announce(target) }
    }

    private func storeDidChange(_ change: Change) {
        if change.origin == .expired {
            // An expiry commits nothing: the value went when its time came, so it has no seq of its own.
            invalidateAndNotify()
            return
        }
        let deferred = state.withLock { s -> Bool in
            guard s.writesInFlight > 0 else { return false }
            s.deferredSeq = max(s.deferredSeq, change.seq)
            return true
        }
        if !deferred { announce(change.seq) }
    }

    private func announce(_ seq: UInt64) {
        let fresh = state.withLock { s -> Bool in
            s.snapshot = Int.min
            guard seq > s.notifiedSeq else { return false } // announced already (or a later change was)
            s.notifiedSeq = seq
            return true
        }
        if fresh { registrar.withMutation(of: self, keyPath: observedKeyPath) {} }
    }

    /// Drops the cache and tells observers (registered defaults changed; no commit to see).
    func invalidateAndNotify() {
        state.withLock { s in
            s.snapshot = Int.min
            s.defaultsGeneration = Int.min
        }
        registrar.withMutation(of: self, keyPath: observedKeyPath) {}
    }

    // MARK: - Errors

    /// A stored value that does not convert to a `T`, as the error a read reports.
    private func readFailure(_ error: any Error, stored: Value) -> ConcordError {
        ConcordError.reading(error, stored: stored, as: T.self).during("read", suite: suite.name, key: key)
    }

    /// `error` as a call through this reference throws it: Concord's named at the key and kept as
    /// `lastError`, any other as it is.
    private func recordThrown(_ operation: String, _ error: any Error) -> any Error {
        guard let error = error as? ConcordError else { return error }
        let failure = error.during(operation, suite: suite.name, key: key)
        record(failure, report: false)
        return failure
    }

    private func record(_ error: ConcordError, report: Bool) {
        state.withLock { $0.lastError = error }
        if report { UnhandledErrors.report(error) }
    }

    /// Hands an error of a setter that cannot throw to the unhandled-error handler (and keeps it as `lastError`).
    func reportUnthrown(_ error: any Error) {
        guard let error = error as? ConcordError else { return UnhandledErrors.report(error) }
        record(error.during("write", suite: suite.name, key: key), report: true)
    }
}
