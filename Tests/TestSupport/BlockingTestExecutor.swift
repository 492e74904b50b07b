import Foundation
import Testing

/// A task executor with threads of its own (SE-0417), for the tests that block: a task that prefers
/// it runs its nonisolated code on these threads, so a test waiting for a child process, sshd or
/// PostgreSQL holds one of them rather than a thread of Swift's cooperative pool (one per core),
/// which the in-process async tests need for their deliveries. Jobs run in the order they arrive.
///
/// ```swift
/// try await withTaskExecutorPreference(BlockingTestExecutor.shared) { try run("sync-tool", ["list", dir]) }
/// ```
public final class BlockingTestExecutor: TaskExecutor, @unchecked Sendable {
    /// The executor of every test marked `.offThePool`: as many threads as the cooperative pool has
    /// (at least two), so the blocking tests run as many at once as they did on the pool.
    public static let shared = BlockingTestExecutor(threads: max(2, ProcessInfo.processInfo.activeProcessorCount))

    private static let marker = "concord.blocking-test-executor"

    /// Whether the calling thread is one of a `BlockingTestExecutor`'s.
    public static var isCurrent: Bool { Thread.current.threadDictionary[marker] != nil }

    private let condition = NSCondition() // guards `jobs`
    private var jobs: [UnownedJob] = []

    public init(threads: Int) {
        for index in 0..<threads {
            Thread { [self] in
                Thread.current.name = "off-pool-\(index)" // set here: on Linux a thread is named from within
                Thread.current.threadDictionary[Self.marker] = true
                serve()
            }.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func serve() {
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: executor)
        }
    }
}

/// Runs each test of a suite (or one test) on `BlockingTestExecutor.shared`: for the tests that
/// block a thread while another process works (they start `sync-tool`, the test helper, sshd or
/// PostgreSQL and wait for it), so they never hold the threads of Swift's cooperative pool that the
/// in-process async tests run on. Tests that await deliveries from observers, streams or actors stay
/// unmarked: on this executor they would wait behind the blocking tests instead.
///
/// ```swift
/// @Suite("sync-tool backup", .offThePool)
/// struct BackupCommandTests { … }
/// ```
///
/// The scope is the suite's (or the test function's), not each test case's: the tasks Swift Testing
/// runs the test cases in are its child tasks and inherit the preference, so a test case waits for a
/// thread of the executor before it starts, not inside its time limit.
public struct OffThePoolTrait: SuiteTrait, TestTrait, TestScoping {
    /// The scope of the suite or test function it is applied to, which holds the scopes of its tests.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? { testCase == nil ? self : nil }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(BlockingTestExecutor.shared) { try await function() }
    }
}

extension Trait where Self == OffThePoolTrait {
    /// Runs the tests on threads of their own, off Swift's cooperative pool (`OffThePoolTrait`).
    public static var offThePool: Self { OffThePoolTrait() }
}
