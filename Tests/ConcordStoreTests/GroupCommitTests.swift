import Foundation
import TestSupport
import Testing

@testable import Concord

/// Threads of one process writing at once share commits: the writes that queue up while a commit is
/// under way go into the next one together, and each still ends with its own outcome.
@Suite(.timeLimit(.minutes(1))) struct GroupCommitTests {
    struct Refused: Error {}

    /// Runs `body` on a thread of its own; the group is left when it returns.
    private func spawn(_ group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        Thread.detachNewThread {
            body()
            group.leave()
        }
    }

    @Test func writesQueuedDuringACommitShareTheNextOneAndAFailingOneFailsAlone() throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        try suite.set(0, forKey: "warm")
        let before = store.commitStamp
        let outcomes = Outcomes()
        let done = DispatchGroup()
        // The first writer leads a commit and holds it until four more writers wait for the next one.
        let leading = DispatchSemaphore(value: 0)
        spawn(done) {
            outcomes.record("lead") {
                try suite.update("lead", as: Int.self) { n in
                    leading.signal()
                    while store.waitingWritesForTesting < 4 { usleep(1_000) }
                    n = 1
                }
            }
        }
        leading.wait()
        spawn(done) { outcomes.record("b") { try suite.set("b", forKey: "b") } }
        spawn(done) { outcomes.record("c") { try suite.set("c", forKey: "c") } }
        spawn(done) {
            outcomes.record("refused") {
                try suite.update("refused", as: Int.self) { n in
                    n = 5
                    throw Refused()
                }
            }
        }
        spawn(done) {
            outcomes.record("reentrant") {
                try suite.update("reentrant", as: Int.self) { n in n = try suite.get("b", as: Int.self) }
            }
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(outcomes.error("lead") == nil)
        #expect(outcomes.error("b") == nil)
        #expect(outcomes.error("c") == nil)
        #expect(outcomes.error("refused") is Refused, "\(String(describing: outcomes.error("refused")))")
        #expect(code(outcomes.error("reentrant")) == .reentrantCall, "\(String(describing: outcomes.error("reentrant")))")
        #expect(try suite.get("lead", as: Int.self) == 1)
        #expect(try suite.get("b", as: String.self) == "b")
        #expect(try suite.get("c", as: String.self) == "c")
        #expect(try suite.contains("refused") == false, "a failed write is undone alone")
        #expect(try suite.contains("reentrant") == false)
        #expect(store.commitStamp - before == 2, "the leader's commit, then one commit shared by the four writers that waited")
        let keys = try store.journalEntries(after: 0).map(\.key)
        #expect(Set(keys) == ["warm", "lead", "b", "c"])
        #expect(keys.count == 4)
    }

    @Test func aQueueLongerThanTheCapIsCommittedInSeveralGroupsLosingNothing() throws {
        let store = try Store.temporary()
        store.writesPerCommitForTesting = 4
        let suite = try store.suite("app")
        try suite.set(0, forKey: "warm")
        let before = store.commitStamp
        let outcomes = Outcomes()
        let done = DispatchGroup()
        // The leader holds its commit until ten writers wait: they go into commits of 4, 4 and 2.
        let leading = DispatchSemaphore(value: 0)
        spawn(done) {
            outcomes.record("lead") {
                try suite.update("lead", as: Int.self) { n in
                    leading.signal()
                    while store.waitingWritesForTesting < 10 { usleep(1_000) }
                    n = 1
                }
            }
        }
        leading.wait()
        for w in 0..<10 {
            spawn(done) { outcomes.record("w\(w)") { try suite.set(w, forKey: "w\(w)") } }
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(outcomes.errors.isEmpty, "\(outcomes.errors)")
        #expect(store.commitStamp - before == 4, "the leader's commit, then the ten queued writes in groups of 4, 4 and 2")
        #expect(try suite.get("lead", as: Int.self) == 1)
        for w in 0..<10 { #expect(try suite.get("w\(w)", as: Int.self) == w) }
        #expect(try store.lastSeq() == 12, "one journal entry per write")
        #expect(store.waitingWritesForTesting == 0)
    }

    @Test func manyThreadsWritingAtOnceLoseNothing() throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        let outcomes = Outcomes()
        let done = DispatchGroup()
        for t in 0..<8 {
            spawn(done) {
                for i in 0..<25 {
                    outcomes.record("t\(t)-\(i)") {
                        try suite.set(i, forKey: "t\(t)-\(i)")
                        _ = try suite.increment("total")
                    }
                }
            }
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(outcomes.errors.isEmpty, "\(outcomes.errors)")
        for t in 0..<8 {
            for i in 0..<25 { #expect(try suite.get("t\(t)-\(i)", as: Int.self) == i) }
        }
        #expect(try suite.get("total", as: Int.self) == 200)
        #expect(try store.lastSeq() == 400, "one journal entry per write, in one sequence")
    }
}

/// What each writer thread ended with.
private final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var ended: [String: (any Error)?] = [:]

    func record(_ name: String, _ body: () throws -> Void) {
        let outcome: (any Error)?
        do {
            try body()
            outcome = nil
        } catch { outcome = error }
        lock.withLock { ended[name] = .some(outcome) }
    }

    func error(_ name: String) -> (any Error)? { lock.withLock { ended[name] ?? nil } }
    var errors: [String: any Error] { lock.withLock { ended.compactMapValues { $0 } } }
}
