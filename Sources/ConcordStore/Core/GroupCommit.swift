import Foundation

/// Lets the threads of one process that write to one replica at once share commits: the first
/// writer to arrive leads, and every writer that arrives while the leader's commit is under way
/// queues up; when it is done, the first of them leads the next commit, taking the whole queue
/// with it. Every caller still returns only after the commit holding its change is durable, or
/// with that change's own error. A lone writer leads a commit of its own, as before.
///
/// The leader runs the queued writers' closures on its own thread (each waits, blocked, until its
/// commit is done), so a closure must not depend on the thread it runs on.
final class GroupCommit: @unchecked Sendable {
    /// One caller's write: its closure, then what became of it.
    final class Pending: @unchecked Sendable {
        enum State { case queued, leading, finished }
        let body: (ReplicaTransaction) throws -> Void
        /// Guarded by the group's condition until `state` is `.finished`; then only its caller reads it.
        var state = State.queued
        /// The error this write ends with (its own closure's, or its commit's), set by the leader.
        var error: (any Error)?

        init(_ body: @escaping (ReplicaTransaction) throws -> Void) { self.body = body }
    }

    /// Guards `queue`, `hasLeader` and every queued `Pending.state`.
    private let condition = NSCondition()
    private var queue: [Pending] = []
    private var hasLeader = false

    /// How many writes wait for a commit to lead or join (for tests that line writers up).
    var waitingCount: Int { condition.withLock { queue.count } }

    /// Runs `pending` in a commit, shared with the writes that queue up meanwhile; `commit` writes and
    /// commits a batch (setting each write's error) and is called by one thread at a time.
    func perform(_ pending: Pending, commit: ([Pending]) -> Void) throws {
        condition.lock()
        queue.append(pending)
        if hasLeader {
            while pending.state == .queued { condition.wait() }
        } else {
            hasLeader = true
            pending.state = .leading
        }
        if pending.state == .leading {
            let batch = queue
            queue.removeAll(keepingCapacity: true)
            condition.unlock()
            commit(batch)
            condition.lock()
            for write in batch { write.state = .finished }
            if let next = queue.first { next.state = .leading } else { hasLeader = false }
            condition.broadcast()
        }
        condition.unlock()
        if let error = pending.error { throw error }
    }
}
