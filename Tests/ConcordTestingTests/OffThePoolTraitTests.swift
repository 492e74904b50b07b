import Foundation
import TestSupport
import Testing

/// `.offThePool` runs a test's body on `BlockingTestExecutor`'s threads, before and after it awaits,
/// and leaves unmarked tests on Swift's cooperative pool.
@Suite("The .offThePool trait")
struct OffThePoolTraitTests {
    @Test(.offThePool) func aSynchronousTestRunsOnTheExecutorsThreads() {
        #expect(currentThreadName().hasPrefix("off-pool-"), "ran on \(currentThreadName())")
    }

    @Test(.offThePool) func anAsyncTestRunsOnThemBeforeAndAfterItAwaits() async throws {
        #expect(currentThreadName().hasPrefix("off-pool-"), "started on \(currentThreadName())")
        try await Task.sleep(for: .milliseconds(1))
        #expect(currentThreadName().hasPrefix("off-pool-"), "resumed on \(currentThreadName())")
    }

    @Test func anUnmarkedTestRunsOnTheCooperativePool() {
        #expect(!currentThreadName().hasPrefix("off-pool-"), "ran on \(currentThreadName())")
    }
}

/// The calling thread's name (`Thread.current` is unavailable in async code itself).
private func currentThreadName() -> String { Thread.current.name ?? "" }
