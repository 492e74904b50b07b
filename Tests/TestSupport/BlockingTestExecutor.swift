import Foundation

/// A task executor with threads of its own (SE-0417), for the tests that hold a thread for long: a
/// task that prefers it runs its nonisolated code on these threads rather than on Swift's cooperative
/// pool (one thread per core), which the in-process async tests need for their deliveries. Each job
/// that arrives while every thread is busy starts another thread, so a test blocked in a wait never
/// holds up another's jobs; how many tests run on it at once is bounded by `OffThePoolTrait`.
///
/// ```swift
/// try await withTaskExecutorPreference(BlockingTestExecutor.shared) { try run("sync-tool", ["list", dir]) }
/// ```
public final class BlockingTestExecutor: TaskExecutor, @unchecked Sendable {
    /// The executor of every test marked `.offThePool`.
    public static let shared = BlockingTestExecutor()

    private static let marker = "concord.blocking-test-executor"

    /// Whether the calling thread is one of a `BlockingTestExecutor`'s.
    public static var isCurrent: Bool { Thread.current.threadDictionary[marker] != nil }

    private let condition = NSCondition() // guards the fields below
    private var jobs: [UnownedJob] = []
    private var threads = 0
    /// Threads waiting for a job, and how many of them have been signalled and not yet woken.
    private var idle = 0
    private var wakes = 0

    public init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        var start = false
        if idle > wakes {
            wakes += 1
            condition.signal()
        } else {
            threads += 1
            start = true
        }
        let index = threads
        condition.unlock()
        if start {
            Thread { [self] in
                Thread.current.name = "off-pool-\(index)" // set here: on Linux a thread is named from within
                Thread.current.threadDictionary[Self.marker] = true
                serve()
            }.start()
        }
    }

    private func serve() {
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while jobs.isEmpty {
                idle += 1
                condition.wait()
                idle -= 1
                if wakes > 0 { wakes -= 1 }
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: executor)
        }
    }
}
