import Concord
import ConcordTesting
import Foundation
import TestSupport
import Testing

/// Waiting for a change with a timeout: blocking and async, from this process and another one.
@Suite("ChangeExpectation")
struct ChangeExpectationTests {
    @Test(.offThePool) func blockingWaitSeesAnotherProcesssWrite() throws {
        let store = try Store.temporary()
        let suite = try store.suite("load")
        let expectation = try suite.expectChange(of: "w-2")
        let writer = try ChildProcess("concord-test-helper", ["write", store.directory, "load", "w", "3"])
        let change = try expectation.wait(timeout: .seconds(30))
        #expect(change.value == .int(2))
        #expect(change.origin == .otherProcess)
        #expect(writer.wait().status == 0)
    }

    @Test func asyncWaitSeesAChangeFromAnotherTaskAndMatchesThePredicate() async throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        let expectation = try suite.expectChange(of: "theme") { $0.value == .string("dark") }
        try await suite.set("light", forKey: "theme") // does not match
        let writer = Task { try suite.set("dark", forKey: "theme") }
        let change = try await expectation.value(timeout: .seconds(30))
        #expect(change.value == .string("dark"))
        #expect(change.origin == .thisProcess)
        try await writer.value
        // Fulfilled once: later waits return the same change at once.
        #expect(try expectation.wait(timeout: .zero) == change)
    }

    @Test func aChangeBeforeTheExpectationIsNotTakenForOneAfter() throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        try suite.set(1, forKey: "n")
        let expectation = try suite.expectChange(of: "n")
        #expect { try expectation.wait(timeout: .milliseconds(300)) } throws: { code($0) == .timedOut }
        try suite.set(2, forKey: "n")
        #expect(try expectation.wait(timeout: .seconds(30)).value == .int(2))
    }

    @Test func timeoutsNameWhatWasAwaited() async throws {
        let suite = try Store.temporary().suite("app")
        do {
            _ = try await suite.nextChange(of: "never", timeout: .milliseconds(200))
            Issue.record("a change arrived that nobody made")
        } catch let timeout as ConcordError {
            #expect(timeout.code == .timedOut && timeout.suite == "app" && timeout.key == "never")
            #expect(timeout.description.hasPrefix("no change of app/never arrived within 0.2 seconds"))
        }
        expectError(.invalidKey) { _ = try suite.expectChange(of: "") }
    }

    /// Many more waiting tasks than the cooperative pool has threads: none of them holds a thread, so
    /// they all see the one change (a wait that blocked a thread would starve the rest until timeout).
    @Test(.timeLimit(.minutes(1)))
    func asyncWaitsNeverBlockTheCooperativePool() async throws {
        let suite = try Store.temporary().suite("app")
        let expectations = try (0..<64).map { _ in try suite.expectChange(of: "go") }
        let started = Collector<Int>()
        let changes = try await withThrowingTaskGroup(of: Change.self) { group in
            for (index, expectation) in expectations.enumerated() {
                group.addTask {
                    started.append(index)
                    return try await expectation.value(timeout: .seconds(60))
                }
            }
            while started.count < expectations.count { try await Task.sleep(for: .milliseconds(5)) }
            try await suite.set(true, forKey: "go")
            var all: [Change] = []
            for try await change in group { all.append(change) }
            return all
        }
        #expect(changes.count == 64)
        #expect(Set(changes.map(\.seq)).count == 1)
    }

    @Test func aCancelledWaitEndsAtOnce() async throws {
        let expectation = try Store.temporary().suite("app").expectChange(of: "k")
        let waiter = Task { try await expectation.value(timeout: .seconds(600)) }
        let deadline = ContinuousClock.now + .seconds(30)
        while expectation.suspendedWaits == 0 && ContinuousClock.now < deadline { await Task.yield() }
        try #require(expectation.suspendedWaits == 1, "the waiter is suspended in value(timeout:)")
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
    }
}
