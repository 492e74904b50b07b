import Foundation
import TestSupport
import Testing

@testable import Concord

/// A store call from inside an `update` closure runs inside the store's write transaction: it would
/// deadlock (a second write) or read a stale snapshot. It throws a clear error instead.
@Suite(.timeLimit(.minutes(1))) struct ReentrancyTests {
    let store: Store
    let suite: Suite

    init() throws {
        store = try Store.temporary()
        suite = try store.suite("app")
    }

    @Test func aWriteInsideAnUpdateThrowsInsteadOfDeadlocking() throws {
        try suite.set(1, forKey: "count")
        let error = #expect(throws: ConcordError.self) {
            try suite.update("count", as: Int.self) { n in
                try suite.set("nested", forKey: "other") // would wait forever for the write lock it holds
                n = (n ?? 0) + 1
            }
        }
        #expect(code(error) == .reentrantCall)
        #expect(error?.description.contains("inside an update, batch or claim closure") == true, "\(String(describing: error))")
        #expect(try suite.get("count", as: Int.self) == 1, "the update was rolled back")
        #expect(try suite.contains("other") == false)
    }

    @Test func aReadInsideAnUpdateThrowsInsteadOfReadingAStaleSnapshot() throws {
        expectError(.reentrantCall) {
            try suite.update("count", as: Int.self) { n in
                n = try suite.get("count", as: Int.self)
            }
        }
        expectError(.reentrantCall) {
            try suite.update("count", as: Int.self) { _ in _ = try store.journalEntries(after: 0) }
        }
    }

    @Test func anotherSuiteOfTheSameStoreIsTheSameReplica() throws {
        let other = try store.suite("other")
        expectError(.reentrantCall) {
            try suite.update("count", as: Int.self) { _ in _ = try other.increment("n") }
        }
        // …and through a second Store object on the same directory (one replica per process).
        let again = try Store(path: store.directory).suite("app")
        expectError(.reentrantCall) {
            try suite.update("count", as: Int.self) { _ in _ = try again.remove("count") }
        }
    }

    @Test func theStoreIsUsableAfterwardsAndOtherThreadsAreUnaffected() throws {
        expectError(.reentrantCall) {
            try suite.update("count", as: Int.self) { _ in _ = try suite.increment("count") }
        }
        // Other threads writing while an update runs simply wait for it.
        let started = DispatchSemaphore(value: 0)
        let writer = Thread {
            started.wait()
            try? suite.set("from another thread", forKey: "t")
        }
        writer.start()
        try suite.update("count", as: Int.self) { n in
            started.signal()
            usleep(50_000)
            n = 5
        }
        for _ in 0..<500 where (try? suite.contains("t")) != true { usleep(10_000) }
        #expect(try suite.get("t", as: String.self) == "from another thread")
        #expect(try suite.increment("count") == 6)
        #expect(try store.integrityReport().isSound)
    }

    @Test func aSecondReplicaMayBeUsedInsideTheClosure() throws {
        let elsewhere = try Store.temporary().suite("app")
        try suite.update("count", as: Int.self) { n in
            try elsewhere.set("copied", forKey: "k") // another directory: another write lock
            n = 1
        }
        #expect(try elsewhere.get("k", as: String.self) == "copied")
    }
}
