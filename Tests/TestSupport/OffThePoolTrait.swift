import Foundation
import Synchronization
import Testing

/// Runs each test of a suite (or one test) on `BlockingTestExecutor.shared`: for the tests that hold
/// a thread for long — they start `sync-tool`, the test helper, sshd or PostgreSQL and wait for it,
/// or compute for seconds (the sync layer's merges) — so they never hold the threads of Swift's
/// cooperative pool that the in-process async tests run on. Tests that await deliveries from
/// observers, streams or actors stay unmarked.
///
/// ```swift
/// @Suite("sync-tool backup", .offThePool)
/// struct BackupCommandTests { … }
/// ```
///
/// As many marked test functions run at once as the machine has cores (at least two), as on the pool;
/// the others wait, suspended, before they start. The wait is the test function's scope, outside its
/// test cases' time limits (the tasks Swift Testing runs the test cases in are its child tasks, and
/// inherit the executor preference).
public struct OffThePoolTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// The scope of each test function (a suite's tests each get their own; a test case runs in its function's).
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? { testCase == nil && !test.isSuite ? self : nil }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        if Self.isAdmitted { return try await function() } // marked twice: by its suite and itself
        await Self.admission.enter()
        defer { Self.admission.leave() }
        try await Self.$isAdmitted.withValue(true) {
            try await withTaskExecutorPreference(BlockingTestExecutor.shared) { try await function() }
        }
    }

    @TaskLocal private static var isAdmitted = false
    private static let admission = Admission(slots: max(2, ProcessInfo.processInfo.activeProcessorCount))
}

extension Trait where Self == OffThePoolTrait {
    /// Runs the tests on threads of their own, off Swift's cooperative pool (`OffThePoolTrait`).
    public static var offThePool: Self { OffThePoolTrait() }
}

/// A counting semaphore whose waiters are suspended, not blocked, served in the order they came.
private final class Admission: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state: Mutex<State>

    init(slots: Int) { state = Mutex(State(free: slots)) }

    func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { s -> Bool in
                guard s.free > 0 else {
                    s.waiting.append(continuation)
                    return false
                }
                s.free -= 1
                return true
            }
            if admitted { continuation.resume() }
        }
    }

    func leave() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard !s.waiting.isEmpty else {
                s.free += 1
                return nil
            }
            return s.waiting.removeFirst()
        }
        next?.resume()
    }
}
