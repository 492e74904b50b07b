import Dispatch
import Foundation
import Synchronization

/// Delivers the journal's new entries to this process's observers of one replica.
///
/// Woken by local commits and by the `ChangeWatcher` (other processes' commits), it reads the
/// journal after the last seq it delivered, so coalesced wake-ups never lose a key's latest change,
/// and delivers entries in commit order, each once, on one serial queue. The watcher thread runs
/// only while there is at least one observer. When the journal cannot be read (a damaged entry),
/// every observer is told the error and observation ends: it could not go on without skipping.
///
/// Values that expire change what a read returns without a commit: after each read of the journal
/// the hub looks up, in the replica's index of expiries, the values that expired since it last looked
/// and tells their observers (origin `.expired`), and sets the watcher's timer to the next expiry —
/// so every process observing the replica is told at the time, whoever wrote the value.
package final class ChangeHub: Sendable {
    struct Subscriber: Sendable {
        let suite: String?
        let key: String?
        let startSeq: UInt64
        /// The wall clock when it subscribed: expiries before then are not news to it.
        let startMilliseconds: UInt64
        let deliver: @Sendable (Change) -> Void
        let fail: @Sendable (ConcordError) -> Void
        /// Set for a subscriber to commits rather than changes: called after every wake-up (a commit
        /// by any process, a cursor moved by a sync), whatever it changed.
        var onCommit: (@Sendable () -> Void)? = nil
    }

    /// The values that expired in a span of time, and the next expiry after it.
    package struct Expiries: Sendable {
        /// The records that expired, as journal entries carrying their own seq.
        package var expired: [JournalEntry] = []
        /// The earliest expiry after the span (milliseconds since 1970), if any.
        package var next: UInt64?

        package init(expired: [JournalEntry] = [], next: UInt64? = nil) {
            self.expired = expired
            self.next = next
        }
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 0
        var delivered: UInt64 = 0
        /// Expiries up to this time (milliseconds since 1970) have been told.
        var expiriesToldUpTo: UInt64 = 0
        var watcher: ChangeWatcher?
    }

    private let state = Mutex(State())
    private let wakePending = Atomic<Bool>(false)
    private let queue = DeliveryQueue(label: "concord.change-hub")
    private let notifyPath: String
    private let readJournal: @Sendable (UInt64) throws -> [JournalEntry]
    private let currentSeq: @Sendable () throws -> UInt64
    private let makeChange: @Sendable (JournalEntry, _ now: UInt64, _ expired: Bool) throws -> Change
    private let readExpiries: @Sendable (_ after: UInt64, _ upTo: UInt64) throws -> Expiries
    private let wallClock: @Sendable () -> UInt64

    init(
        notifyPath: String,
        readJournal: @escaping @Sendable (UInt64) throws -> [JournalEntry],
        currentSeq: @escaping @Sendable () throws -> UInt64,
        makeChange: @escaping @Sendable (JournalEntry, _ now: UInt64, _ expired: Bool) throws -> Change,
        readExpiries: @escaping @Sendable (_ after: UInt64, _ upTo: UInt64) throws -> Expiries,
        wallClock: @escaping @Sendable () -> UInt64
    ) {
        self.notifyPath = notifyPath
        self.readJournal = readJournal
        self.currentSeq = currentSeq
        self.makeChange = makeChange
        self.readExpiries = readExpiries
        self.wallClock = wallClock
    }

    deinit { state.withLock { $0.watcher?.stop() } }

    var hasSubscribers: Bool { state.withLock { !$0.subscribers.isEmpty } }

    /// Registers an observer of changes committed from now on; returns its id.
    func subscribe(
        suite: String?, key: String?,
        deliver: @escaping @Sendable (Change) -> Void,
        fail: @escaping @Sendable (ConcordError) -> Void
    ) throws -> Int {
        let start = try currentSeq()
        let now = wallClock()
        var startWatcher = false
        let id = state.withLock { s -> Int in
            if s.subscribers.isEmpty {
                s.delivered = max(s.delivered, start)
                s.expiriesToldUpTo = max(s.expiriesToldUpTo, now)
                startWatcher = s.watcher == nil
            }
            s.nextID += 1
            s.subscribers[s.nextID] = Subscriber(
                suite: suite, key: key, startSeq: start, startMilliseconds: now, deliver: deliver, fail: fail)
            return s.nextID
        }
        if startWatcher {
            let watcher: ChangeWatcher
            do { watcher = try ChangeWatcher(path: notifyPath, wallClock: wallClock) { [weak self] in self?.wake() } } catch {
                unsubscribe(id)
                throw error
            }
            let redundant = state.withLock { s -> Bool in
                if s.watcher == nil && !s.subscribers.isEmpty {
                    s.watcher = watcher
                    return false
                }
                return true
            }
            if redundant { watcher.stop() } else { wake() } // the first look at the expiries sets the timer
        }
        return id
    }

    /// Registers `body` to be called after every commit to the replica from now on (by any process,
    /// cursor moves included), on the delivery queue; returns its id for `unsubscribe`.
    func subscribeCommits(_ body: @escaping @Sendable () -> Void, fail: @escaping @Sendable (ConcordError) -> Void) throws -> Int {
        let id = try subscribe(suite: nil, key: nil, deliver: { _ in }, fail: fail)
        state.withLock { $0.subscribers[id]?.onCommit = body }
        return id
    }

    func unsubscribe(_ id: Int) {
        let stopping = state.withLock { s -> ChangeWatcher? in
            s.subscribers[id] = nil
            guard s.subscribers.isEmpty, let w = s.watcher else { return nil }
            s.watcher = nil
            return w
        }
        stopping?.stop()
    }

    /// Runs `work` on the delivery queue, after every delivery scheduled before it.
    func enqueue(_ work: @escaping @Sendable () -> Void) { queue.async(execute: work) }

    /// Schedules a read of the journal; wake-ups that arrive while one is pending coalesce.
    func wake() {
        guard hasSubscribers else { return }
        if wakePending.exchange(true, ordering: .acquiringAndReleasing) { return }
        queue.async { [weak self] in self?.pump() }
    }

    private func pump() {
        wakePending.store(false, ordering: .releasing)
        let now = wallClock()
        let deliveredBefore = state.withLock { $0.delivered }
        while true {
            let since = state.withLock { $0.delivered }
            let entries: [JournalEntry]
            do { entries = try readJournal(since) } catch {
                failAll(error)
                return
            }
            guard let last = entries.last else { break }
            let subscribers = state.withLock { s -> [Subscriber] in
                s.delivered = max(s.delivered, last.seq)
                return Array(s.subscribers.values)
            }
            for entry in entries {
                guard deliver(entry, to: subscribers, now: now, expired: false, where: { entry.seq > $0.startSeq }) else { return }
            }
            if entries.count < Self.pageSize { break }
        }
        tellExpiries(now: now, deliveredBefore: deliveredBefore)
        for sub in state.withLock({ Array($0.subscribers.values) }) { sub.onCommit?() }
    }

    /// Tells observers of the values that expired since the last look, up to `now`, and sets the
    /// timer to the next expiry. A record delivered by this pump (or not yet delivered: committed
    /// after its journal read) is left out: its change was, or will be, read at `now` or later, so it
    /// already says the value is gone.
    private func tellExpiries(now: UInt64, deliveredBefore: UInt64) {
        let (after, subscribers, watcher) = state.withLock { s in (s.expiriesToldUpTo, Array(s.subscribers.values), s.watcher) }
        guard !subscribers.isEmpty else { return }
        let found: Expiries
        do { found = try readExpiries(after, now) } catch {
            failAll(error)
            return
        }
        state.withLock { $0.expiriesToldUpTo = max($0.expiriesToldUpTo, now) }
        for entry in found.expired where entry.seq <= deliveredBefore {
            let expiry = entry.record.expiresAtMilliseconds ?? 0
            guard deliver(entry, to: subscribers, now: now, expired: true, where: { expiry > $0.startMilliseconds }) else { return }
        }
        watcher?.wake(at: found.next)
    }

    /// Delivers the change `entry` made (read at `now`; with `expired`, its value's expiry) to each
    /// subscriber to changes of its key that `wants` it. False when the change cannot be made: every
    /// observer was told the error, and observation ended.
    private func deliver(_ entry: JournalEntry, to subscribers: [Subscriber], now: UInt64, expired: Bool, where wants: (Subscriber) -> Bool) -> Bool {
        var change: Change?
        for sub in subscribers
        where sub.onCommit == nil && (sub.suite == nil || sub.suite == entry.suite) && (sub.key == nil || sub.key == entry.key) && wants(sub) {
            if change == nil {
                do { change = try makeChange(entry, now, expired) } catch {
                    failAll(error)
                    return false
                }
            }
            sub.deliver(change!)
        }
        return true
    }

    /// Tells every observer that the journal cannot be read, and ends every observation.
    private func failAll(_ error: any Error) {
        let storeError = error as? ConcordError ?? .damaged(path: notifyPath, reason: "the change journal cannot be read: \(error)")
        let (failed, watcher) = state.withLock { s -> ([Subscriber], ChangeWatcher?) in
            defer {
                s.subscribers = [:]
                s.watcher = nil
            }
            return (Array(s.subscribers.values), s.watcher)
        }
        watcher?.stop()
        for sub in failed { sub.fail(storeError) }
    }

    /// How many journal entries one read delivers before reading the next page.
    static let pageSize = 10_000
}
