import Foundation
import TestSupport
import Testing

@testable import Concord

/// `suite.values(of:as:)`: the current value first, then the value after each change, with the
/// promise the documentation states — the latest value after coalescing, in commit order.
@Suite struct ValueStreamTests {
    @Test func startsWithTheCurrentValueThenEachChange() async throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        try await suite.set(1, forKey: "count")
        var values = suite.values(of: "count", as: Int.self).makeAsyncIterator()
        #expect(try await values.next() == .some(1))
        try await suite.set(2, forKey: "count")
        #expect(try await values.next() == .some(2))
        try await suite.set(2, forKey: "count") // equal values are delivered too
        #expect(try await values.next() == .some(2))
        try await suite.set(5, forKey: "other") // another key: not delivered
        try await suite.remove("count")
        #expect(try await values.next() == .some(nil))
    }

    @Test func registeredDefaultsAreWhatAReadReturns() async throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        try suite.register(defaults: ["theme": "light"])
        var values = suite.values(of: "theme", as: String.self).makeAsyncIterator()
        #expect(try await values.next() == .some("light"))
        try await suite.set("dark", forKey: "theme")
        #expect(try await values.next() == .some("dark"))
        try await suite.remove("theme")
        #expect(try await values.next() == .some("light"))
    }

    /// The promise: a consumer slower than the writes gets the latest value, in commit order, but not
    /// necessarily every intermediate one; the last committed value always arrives.
    @Test func aSlowConsumerGetsTheLatestValueInCommitOrder() async throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        var values = suite.values(of: "n", as: Int.self).makeAsyncIterator()
        #expect(try await values.next() == .some(nil))
        for n in 1...200 { try await suite.set(n, forKey: "n") }
        var seen: [Int] = []
        while seen.last != 200 { seen.append(try #require(try await values.next() ?? nil)) }
        #expect(seen == seen.sorted() && Set(seen).count == seen.count, "commit order, each value once: \(seen)")
        #expect(seen.count < 200, "the writes coalesced for a consumer that did not keep up: \(seen.count) values")
    }

    @Test func aChangeFromAnotherProcessArrives() async throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        try await suite.set(1, forKey: "count")
        var values = suite.values(of: "count", as: Int.self).makeAsyncIterator()
        #expect(try await values.next() == .some(1))
        let result = try run("sync-tool", ["set", store.directory, "app", "count", "42", "--type", "int"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try await values.next() == .some(42))
    }

    @Test func aValueOfAnotherTypeEndsTheStreamWithATypeMismatch() async throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        try await suite.set("ten", forKey: "count")
        var first = suite.values(of: "count", as: Int.self).makeAsyncIterator()
        await #expect(throws: ConcordError.typeMismatch(suite: "app", key: "count", stored: "string", requested: "Int")) {
            _ = try await first.next()
        }
        try await suite.set(3, forKey: "count")
        var later = suite.values(of: "count", as: Int.self).makeAsyncIterator()
        #expect(try await later.next() == .some(3))
        try await suite.set(true, forKey: "count")
        await #expect(throws: ConcordError.typeMismatch(suite: "app", key: "count", stored: "bool", requested: "Int")) {
            _ = try await later.next()
        }
        var invalid = suite.values(of: "", as: Int.self).makeAsyncIterator()
        await #expect { _ = try await invalid.next() } throws: { code($0) == .invalidKey }
    }

    /// A loop on the main actor receives every element there.
    @MainActor @Test func iterationDeliversOnTheConsumersActor() async throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        var values = suite.values(of: "theme", as: String.self).makeAsyncIterator()
        #expect(try await values.next() == .some(nil))
        MainActor.preconditionIsolated()
        Task.detached { try suite.set("dark", forKey: "theme") }
        #expect(try await values.next() == .some("dark"))
        MainActor.preconditionIsolated()
    }
}
