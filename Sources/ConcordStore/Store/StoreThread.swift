import Foundation
import Synchronization

/// The threads a store runs its async calls' blocking work on, so an `await` never holds a thread
/// of Swift's cooperative pool through an LMDB transaction or an fsync.
///
/// Jobs start in the order they were submitted, on up to `threadLimit` threads of the store's own,
/// started as jobs arrive and ended when the store is released: writes that arrive together run on
/// several of them and share a group commit, as threads writing at once do. A job whose task is
/// cancelled before it starts is skipped and throws `CancellationError`; one that has started runs
/// to the end, and its caller gets its result.
///
/// ```swift
/// let version = try await store.thread.run { try suite.set("dark", forKey: "theme") }
/// ```
package final class StoreThread: Sendable {
    private let name: String
    /// Made by the first async call, so opening a store that is never awaited makes no queue and no
    /// lock (a cold open does no more than it needs).
    private let made = Mutex<JobQueue?>(nil)

    /// How many threads a store runs async calls on, at most.
    package static let threadLimit = 4

    init(name: String) { self.name = name }

    /// Jobs submitted and not yet taken by a thread (for tests that line jobs up).
    package var waitingJobs: Int { made.withLock { $0?.waiting ?? 0 } }

    deinit { made.withLock { $0?.close() } }

    /// The job queue, made on first use.
    private var queue: JobQueue {
        made.withLock { slot in
            if let queue = slot { return queue }
            let queue = JobQueue(name: name, limit: Self.threadLimit)
            slot = queue
            return queue
        }
    }

    /// Whether the calling thread is a store thread (of any store) running a job.
    package static var isCurrent: Bool { Thread.current.threadDictionary[JobQueue.marker] != nil }

    /// Runs `body` on one of the store's threads and returns its result, suspending (not blocking) meanwhile.
    ///
    /// - Throws: `CancellationError` when the task was cancelled before `body` started; else what `body` throws.
    package func run<R: Sendable>(_ body: @escaping @Sendable () throws -> R) async throws -> R {
        try Task.checkCancellation()
        let job = Job<R>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
                guard job.wait(with: continuation) else { return }
                queue.submit {
                    guard job.start() else { return }
                    job.finish(Result { try body() })
                }
            }
        } onCancel: {
            job.cancel()
        }
    }
}

/// One call's progress: waiting (with its continuation), started, or over; resumed exactly once.
private final class Job<R: Sendable>: Sendable {
    private enum Phase {
        case new
        case waiting(CheckedContinuation<R, any Error>)
        case cancelledEarly
        case started(CheckedContinuation<R, any Error>)
        case over
    }
    private let phase = Mutex(Phase.new)

    /// Keeps the continuation; false (and resumed with `CancellationError`) when the task was cancelled already.
    func wait(with continuation: CheckedContinuation<R, any Error>) -> Bool {
        let proceed = phase.withLock { p -> Bool in
            if case .cancelledEarly = p {
                p = .over
                return false
            }
            p = .waiting(continuation)
            return true
        }
        if !proceed { continuation.resume(throwing: CancellationError()) }
        return proceed
    }

    /// Called by the thread before the work: false when the job was cancelled (nothing runs then).
    func start() -> Bool {
        phase.withLock { p -> Bool in
            guard case .waiting(let c) = p else { return false }
            p = .started(c)
            return true
        }
    }

    func finish(_ result: Result<R, any Error>) {
        let continuation = phase.withLock { p -> CheckedContinuation<R, any Error>? in
            guard case .started(let c) = p else { return nil }
            p = .over
            return c
        }
        continuation?.resume(with: result)
    }

    /// A cancelled job that has not started never will: its caller resumes now with `CancellationError`.
    func cancel() {
        let continuation = phase.withLock { p -> CheckedContinuation<R, any Error>? in
            switch p {
            case .new:
                p = .cancelledEarly
                return nil
            case .waiting(let c):
                p = .over
                return c
            default: return nil
            }
        }
        continuation?.resume(throwing: CancellationError())
    }
}

/// A FIFO of jobs served by up to `limit` threads of its own, each started when a job finds no idle one.
private final class JobQueue: @unchecked Sendable {
    static let marker = "concord.store-thread"
    private let name: String
    private let limit: Int
    private let condition = NSCondition() // guards the fields below
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    private var threads = 0
    /// Threads waiting for a job, and how many of them have been signalled and not yet woken.
    private var idle = 0
    private var wakes = 0
    private var closed = false

    init(name: String, limit: Int) {
        self.name = name
        self.limit = limit
    }

    var waiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count - head
    }

    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        var start = false
        if idle > wakes {
            wakes += 1
            condition.signal()
        } else if threads < limit {
            threads += 1
            start = true
        }
        condition.unlock()
        if start {
            let thread = Thread { [self] in serve() }
            thread.name = name
            thread.start()
        }
    }

    /// No more jobs will come: the thread ends once it has run those queued.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    private func serve() {
        Thread.current.threadDictionary[Self.marker] = true
        while let job = next() { job() }
    }

    private func next() -> (@Sendable () -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        while head == jobs.count {
            if closed {
                threads -= 1
                return nil
            }
            idle += 1
            condition.wait()
            idle -= 1
            if wakes > 0 { wakes -= 1 }
        }
        let job = jobs[head]
        head += 1
        if head == jobs.count {
            jobs.removeAll(keepingCapacity: true)
            head = 0
        }
        return job
    }
}
