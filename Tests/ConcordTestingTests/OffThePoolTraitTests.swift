import Foundation
import TestSupport
import Testing

/// `.offThePool` runs a test's body on `BlockingTestExecutor`'s threads, before and after it awaits,
/// and leaves unmarked tests on Swift's cooperative pool.
@Suite("The .offThePool trait")
struct OffThePoolTraitTests {
    @Test(.offThePool) func aSynchronousTestRunsOnTheExecutorsThreads() {
        #expect(onTheExecutor(), "ran on \(currentThreadName())")
    }

    @Test(.offThePool) func anAsyncTestRunsOnThemBeforeAndAfterItAwaits() async throws {
        #expect(onTheExecutor(), "started on \(currentThreadName())")
        try await Task.sleep(for: .milliseconds(1))
        #expect(onTheExecutor(), "resumed on \(currentThreadName())")
    }

    @Test func anUnmarkedTestRunsOnTheCooperativePool() {
        #expect(!onTheExecutor(), "ran on \(currentThreadName())")
    }
}

/// Whether the calling thread is the executor's (`Thread.current` is unavailable in async code itself).
private func onTheExecutor() -> Bool { BlockingTestExecutor.isCurrent }

/// The calling thread's name.
private func currentThreadName() -> String { Thread.current.name ?? "" }
