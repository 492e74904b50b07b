import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Concord

/// A damaged journal must not silently stop observers: each learns what went wrong, and observation ends.
@Suite(.timeLimit(.minutes(1))) struct ObservationFailureTests {
    /// Appends a journal entry whose bytes do not decode, as damage on disk would leave it.
    static func damageJournal(_ store: Store) throws {
        try store.write { w in
            try w.txn.put(w.layout.journal, StoreLayout.seqKey(w.lastSeq + 1_000), [1, 9, 9, 9])
        }
    }

    @Test func aStreamThrowsWhenTheJournalCannotBeRead() async throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = try Store(path: tmp.path("r"))
        let suite = try store.suite("app")
        let started = Collector<Bool>()
        let received = Collector<Change>()
        let task = Task { () -> ConcordError? in
            var iterator = suite.changes().makeAsyncIterator()
            started.append(true)
            do {
                while let change = try await iterator.next() { received.append(change) }
                return nil
            } catch let error as ConcordError {
                return error
            } catch {
                return nil
            }
        }
        #expect(await started.arrival(of: 1))
        try await suite.set(1, forKey: "fine")
        #expect(await received.arrival(of: 1))
        try Self.damageJournal(store)
        try await suite.set(2, forKey: "after") // wakes the hub, which meets the damaged entry
        let error = await task.value
        #expect(code(error) == .damaged, "\(String(describing: error))")
        #expect(error?.description.contains("does not decode") == true)
        #expect(received.values.map(\.key) == ["fine"])
    }

    @Test func aCallbackObserverIsToldAndNothingIsDeliveredAsADeletion() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = try Store(path: tmp.path("r"))
        let suite = try store.suite("app")
        let changes = Collector<Change>()
        let errors = Collector<ConcordError>()
        let token = try suite.changes().start(onError: { errors.append($0) }) { changes.append($0) }
        try Self.damageJournal(store)
        try suite.set(2, forKey: "after")
        #expect(errors.wait(for: 1))
        #expect(code(errors.values.first) == .damaged)
        #expect(changes.values.isEmpty, "no damaged entry is delivered, least of all as a deletion")
        #expect(!store.core.hub.hasSubscribers, "observation ended with the error: the hub holds no observer to call")
        try suite.set(3, forKey: "later")
        #expect(errors.count == 1 && changes.values.isEmpty, "observation ended with the error")
        token.cancel()
    }

    @Test func withoutOnErrorTheErrorGoesToUnhandledErrors() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = try Store(path: tmp.path("r"))
        let suite = try store.suite("app")
        ReportedErrors.install()
        let token = try suite.changes().start { _ in }
        try Self.damageJournal(store)
        try suite.set(1, forKey: "x")
        let mine = "the store at \(store.directory) is damaged"
        for _ in 0..<3000 where ReportedErrors.containing(mine).isEmpty { usleep(10_000) }
        #expect(ReportedErrors.containing(mine).count == 1)
        token.cancel()
    }
}
