import Foundation
import Synchronization

/// The thread a store runs its async calls' blocking work on, so an `await` never holds a thread
/// of Swift's cooperative pool through an LMDB transaction or an fsync.
///
/// Jobs run one at a time, in the order they were submitted (LMDB takes one write transaction at a
/// time anyway). The thread starts with the first job and ends when the store is released. A job
/// whose task is cancelled before it starts is skipped and throws `CancellationError`; one that has
/// started runs to the end, and its caller gets its result.
///
/// ```swift
/// let version = try await store.thread.run { try suite.set("dark", forKey: "theme") }
/// ```
package final class StoreThread: Sendable {
    private let queue: JobQueue

    init(name: String) { queue = JobQueue(name: name) }

    deinit { queue.close() }

    /// Whether the calling thread is a store thread (of any store) running a job.
    package static var isCurrent: Bool { Thread.current.threadDictionary[JobQueue.marker] != nil }

    /// Runs `body` on the store's thread and returns its result, suspending (not blocking) meanwhile.
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
            if case .cancelledEarly = p { p = .over; return false }
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
            case .new: p = .cancelledEarly; return nil
            case .waiting(let c): p = .over; return c
            default: return nil
            }
        }
        continuation?.resume(throwing: CancellationError())
    }
}

/// A FIFO of jobs served by one thread of its own, started on the first job.
private final class JobQueue: @unchecked Sendable {
    static let marker = "concord.store-thread"
    private let name: String
    private let condition = NSCondition()   // guards the fields below
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    private var running = false
    private var closed = false

    init(name: String) { self.name = name }

    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        let start = !running
        running = true
        condition.signal()
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
        condition.signal()
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
            if closed { running = false; return nil }
            condition.wait()
        }
        let job = jobs[head]
        head += 1
        if head == jobs.count { jobs.removeAll(keepingCapacity: true); head = 0 }
        return job
    }
}
