import Foundation
import TestSupport
import Testing

@testable import Concord

@Suite("Change journal and observation")
struct ObservationTests {
    @Test func callbacksSeeLocalChangesInOrderWithOrigin() throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        let seen = Collector<Change>()
        let token = try suite.changes().start { seen.append($0) }
        // A rewrite supersedes the key's earlier journal entry, so an observer that wakes after two
        // writes of "a" sees only the latest; wait for delivery before rewriting "a" to see each change.
        try suite.set(1, forKey: "a")
        try suite.set("x", forKey: "b")
        #expect(seen.wait(for: 2))
        try suite.remove("a")
        #expect(seen.wait(for: 3))
        let changes = seen.values
        #expect(changes.map(\.key) == ["a", "b", "a"])
        #expect(changes.map(\.seq) == changes.map(\.seq).sorted())
        #expect(changes[0].value == .int(1))
        #expect(changes[2].isDeletion)
        #expect(changes.allSatisfy { $0.origin == .thisProcess })
        token.cancel()
    }

    @Test func registeredDefaultsComeBackAfterDeleteAndReset() throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        try suite.register(defaults: ["theme": "light"])
        let seen = Collector<Change>()
        let token = try suite.changes(for: "theme").start { seen.append($0) }
        // One change at a time: rewrites of one key that an observer has not read yet are compacted.
        try suite.set("dark", forKey: "theme")
        #expect(seen.wait(for: 1))
        try suite.remove("theme")
        #expect(seen.wait(for: 2))
        try suite.set("blue", forKey: "theme")
        #expect(seen.wait(for: 3))
        try suite.reset()
        #expect(seen.wait(for: 4))
        #expect(seen.values.map(\.effectiveValue) == [.string("dark"), .string("light"), .string("blue"), .string("light")])
        withExtendedLifetime(token) {}
    }

    @Test func releasingTheTokenStopsDelivery() throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        let seen = Collector<Change>()
        var token: ObservationToken? = try suite.changes().start { seen.append($0) }
        try suite.set(1, forKey: "a")
        #expect(seen.wait(for: 1))
        token = nil
        _ = token
        try suite.set(2, forKey: "a")
        try suite.set(3, forKey: "a")
        // A fresh observer proves the later changes were delivered to observers still registered.
        let after = Collector<Change>()
        let other = try suite.changes().start { after.append($0) }
        try suite.set(4, forKey: "a")
        #expect(after.wait(for: 1))
        #expect(seen.count == 1)
        withExtendedLifetime(other) {}
    }

    @Test func theAsyncSequenceDeliversAndEndsOnCancellation() async throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        let received = Collector<Change>()
        let subscribed = Collector<Bool>()
        let changes = suite.changes(for: "k")
        let task = Task { () -> Int in
            var iterator = changes.makeAsyncIterator() // observation starts here
            subscribed.append(true)
            while let change = try await iterator.next() { received.append(change) }
            return received.count // reached only when the sequence ends
        }
        for _ in 0..<3000 where subscribed.count == 0 { try await Task.sleep(for: .milliseconds(10)) }
        try await suite.set(1, forKey: "k")
        try await suite.set(1, forKey: "other")
        // A rewrite supersedes the key's earlier entry: wait for the first change before rewriting the key.
        for _ in 0..<3000 where received.count < 1 { try await Task.sleep(for: .milliseconds(10)) }
        try await suite.set(2, forKey: "k")
        for _ in 0..<3000 where received.count < 2 { try await Task.sleep(for: .milliseconds(10)) }
        task.cancel()
        let delivered = try await task.value
        #expect(delivered == 2)
        #expect(received.values.map(\.value) == [.int(1), .int(2)])
    }

    @Test func aStalledConsumerNeitherBlocksTheWriterNorGrowsWithoutBound() async throws {
        var options = Store.Options()
        options.durability = .none
        let store = try Store.temporary(options: options)
        let suite = try store.suite("app")
        var iterator = suite.changes().buffering(.bounded(16)).makeAsyncIterator()
        _ = iterator // subscribed, never consumed while writing
        // The hub delivers a change to every observer in one pass over the journal, then tells the
        // commit observers: once a pass has delivered the last write, the stream has every change too.
        let seen = Collector<String>()
        let observer = try suite.changes().start { seen.append($0.key) }
        let deliveredAll = Collector<Bool>()
        let passes = try store.observeCommits(onError: { _ in }) { if seen.values.last == "single199" { deliveredAll.append(true) } }
        defer {
            observer.cancel()
            passes.cancel()
        }
        // The synchronous calls (a nested function that is not async picks them): the writer is this
        // thread, so the bound below measures the writes alone, not the cooperative pool's queue.
        func write() throws {
            try suite.batch { b in for i in 0..<2000 { try b.set(i, forKey: "k\(i)") } }
            for i in 0..<200 { try suite.set(i, forKey: "single\(i)") }
        }
        let start = Date()
        try write()
        #expect(Date().timeIntervalSince(start) < 30)
        #expect(await deliveredAll.arrival(of: 1), "the hub delivered every write (\(seen.count) of 2,200)")
        // Only the newest 16 changes (the buffer this consumer chose) are kept; they end with the last write.
        var buffered: [Change] = []
        while buffered.last?.key != "single199", let next = try await iterator.next() { buffered.append(next) }
        #expect(buffered.count == 16)
        #expect(buffered.map(\.key) == (184..<200).map { "single\($0)" })
    }

    @Test func compactionKeepsTheJournalOKeysAndDeliversEveryLatestChange() throws {
        var options = Store.Options()
        options.durability = .none
        let store = try Store.temporary(options: options)
        let suite = try store.suite("app")
        let seq0 = try store.lastSeq()
        for round in 0..<1000 {
            try suite.batch { b in for k in 0..<100 { try b.set(round * 100 + k, forKey: "key\(k)") } }
        }
        // 100,000 rewrites of 100 keys leave 100 journal entries, each the latest value.
        let entries = try store.journalEntries(after: seq0)
        #expect(entries.count == 100)
        #expect(try store.info().journalEntries == 100)
        for entry in entries {
            let k = Int(entry.key.dropFirst(3))!
            #expect(try entry.record.value() == .int(999 * 100 + k))
        }
        #expect(try store.lastSeq() == seq0 + 100_000)
        #expect(try store.integrityReport().isSound)
    }

    @Test(.offThePool) func aWatcherProcessReceivesEveryChangeFromThreeConcurrentWriters() throws {
        let store = try Store.temporary()
        let dir = store.directory
        let watcher = try ChildProcess("sync-tool", ["watch", dir, "--json", "--count", "900", "--timeout", "120"])
        try #require(watcher.waitForErrorLine { $0.hasPrefix("watching ") }, "the watcher subscribes: \(watcher.errorOutput)")
        let writers = try (0..<3).map { w in try ChildProcess("concord-test-helper", ["write", dir, "app", "w\(w)", "300"]) }
        for w in writers { #expect(w.wait().status == 0) }
        let result = watcher.wait(timeout: 120)
        #expect(result.status == 0)
        var perWriter: [String: [Int]] = [:]
        var keys = Set<String>()
        var seqs: [Int] = []
        for line in result.lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let key = try #require(object["key"] as? String)
            #expect(keys.insert(key).inserted, "\(key) delivered twice")
            #expect(object["origin"] as? String == "other-process")
            seqs.append(try #require(object["seq"] as? Int))
            let parts = key.split(separator: "-")
            perWriter[String(parts[0]), default: []].append(Int(parts[1])!)
        }
        #expect(keys.count == 900, "received \(keys.count) of 900 changes")
        #expect(seqs == seqs.sorted())
        for (writer, order) in perWriter { #expect(order == Array(0..<300), "\(writer) out of order or missing") }
    }

    @Test(.offThePool) func observersInThisProcessSeeOtherProcessesChanges() throws {
        let store = try Store.temporary()
        let expectation = try store.suite("app").expectChange(of: "k")
        #expect(try run("sync-tool", ["set", store.directory, "app", "k", "v"]).status == 0)
        let change = try expectation.wait(timeout: .seconds(10))
        #expect(change.origin == .otherProcess)
        #expect(change.value == .string("v"))
    }
}
