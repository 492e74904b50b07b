import Dispatch
import Foundation

/// Lets the threads of one process that write to one replica at once share commits: the first
/// writer to arrive leads, and every writer that arrives while the leader's commit is under way
/// queues up; when it is done, the first of them leads the next commit, taking up to `limit` writes
/// of the queue with it (so a commit's latency stays bounded however many writers queue; the rest go
/// into the commits after it, in the order they arrived). Every caller still returns only after the
/// commit holding its change is durable, or with that change's own error. A lone writer leads a commit of its own.
///
/// The leader runs the queued writers' closures on its own thread (each waits, blocked, until its
/// commit is done), so a closure must not depend on the thread it runs on. Each waiting writer is
/// woken alone (the next leader first), so a commit wakes only the threads it concerns.
final class GroupCommit: @unchecked Sendable {
    /// One caller's write: its closure, then what became of it.
    final class Pending: @unchecked Sendable {
        enum State { case queued, leading, finished }
        /// The caller's closure, dropped by the leader once its commit is done and before its caller is
        /// woken: the caller's closure must not outlive the call (`withoutActuallyEscaping` checks).
        private(set) var body: ((ReplicaTransaction) throws -> Void)?
        /// Set by the thread that wakes this write, before it signals `wake`; read by its caller after.
        var state = State.queued
        /// The error this write ends with (its own closure's, or its commit's), set by the leader.
        var error: (any Error)?
        let wake = DispatchSemaphore(value: 0)

        init(_ body: @escaping (ReplicaTransaction) throws -> Void) { self.body = body }

        /// Runs the caller's closure in `transaction`.
        func run(_ transaction: ReplicaTransaction) throws { try body?(transaction) }

        /// Marks the write done: drops its closure and wakes its caller, unless the caller is this thread.
        func finish(wakingCaller: Bool) {
            body = nil
            state = .finished
            if wakingCaller { wake.signal() }
        }
    }

    /// Guards `queue`, `hasLeader`, `callers` and `limit`.
    private let lock = NSLock()
    private var queue: [Pending] = []
    private var hasLeader = false
    /// The most writes one commit takes.
    private var limit = GroupCommit.defaultLimit
    /// How many callers are inside `perform` (queued, leading, or woken and on their way out).
    private var callers = 0

    /// The most writes one commit takes by default: it bounds a commit's latency while keeping most of
    /// the throughput of uncapped groups, as the bench's `group-cap` workload measures (its figures are
    /// in Tools/bench/README.md).
    static let defaultLimit = 128

    /// How many times a new leader yields the processor while callers still inside `perform` have not queued.
    static let joinYields = 4

    /// How many writes wait for a commit to lead or join (for tests that line writers up).
    var waitingCount: Int { lock.withLock { queue.count } }

    /// The most writes one commit takes (tests lower it to line up more writers than that).
    var writesPerCommit: Int {
        get { lock.withLock { limit } }
        set { lock.withLock { limit = max(1, newValue) } }
    }

    /// Runs `pending` in a commit, shared with the writes that queue up meanwhile; `commit` writes and
    /// commits a batch (setting each write's error) and is called by one thread at a time.
    func perform(_ pending: Pending, commit: ([Pending]) -> Void) throws {
        defer { lock.withLock { callers -= 1 } }
        let leads = lock.withLock {
            callers += 1
            queue.append(pending)
            if hasLeader { return false }
            hasLeader = true
            return true
        }
        if !leads { pending.wake.wait() }
        if leads || pending.state == .leading {
            // Writers the previous commit just woke are on their way out and often straight back in
            // (a thread writing one key after another): give them a moment to join this commit.
            for _ in 0..<Self.joinYields where lock.withLock({ queue.count < min(callers, limit) }) { sched_yield() }
            let batch = lock.withLock {
                let count = min(queue.count, limit)
                let batch = Array(queue[..<count])
                queue.removeFirst(count)
                return batch
            }
            commit(batch)
            pending.finish(wakingCaller: false)
            let next = lock.withLock { () -> Pending? in
                if let next = queue.first { return next }
                hasLeader = false
                return nil
            }
            if let next {
                next.state = .leading
                next.wake.signal()
            }
            for write in batch where write !== pending { write.finish(wakingCaller: true) }
        }
        if let error = pending.error { throw error }
    }
}
