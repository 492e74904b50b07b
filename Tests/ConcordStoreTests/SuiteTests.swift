import Foundation
import TestSupport
import Testing

@testable import Concord

@Suite("Suites: defaults, deletes, resets, batches, atomic updates")
struct SuiteTests {
    let store: Store

    init() throws { store = try Store.temporary() }

    @Test func registeredDefaultsAreFallbacksNeverStored() throws {
        let suite = try store.suite("app")
        try suite.register(defaults: ["launchCount": 7, "name": "Guest"])
        #expect(try suite.get("launchCount", as: Int.self) == 7)
        #expect(try suite.contains("launchCount") == false)
        #expect(try suite.keys() == [])
        #expect(try store.lastSeq() == 0)
        try suite.set(9, forKey: "launchCount")
        #expect(try suite.get("launchCount", as: Int.self) == 9)
        try suite.remove("launchCount")
        #expect(try suite.get("launchCount", as: Int.self) == 7)
        #expect(try suite.increment("launchCount") == 8)
    }

    @Test func deleteWritesATombstoneWithANewerVersion() throws {
        let suite = try store.suite("app")
        try suite.set("x", forKey: "k")
        let written = try #require(try suite.record(forKey: "k"))
        try suite.remove("k")
        let tombstone = try #require(try suite.record(forKey: "k"))
        #expect(tombstone.isTombstone)
        #expect(tombstone.version > written.version)
        #expect(try suite.contains("k") == false)
        #expect(try suite.get("k", as: String.self) == nil)
    }

    @Test func resetTombstonesEveryKeyOfTheSuiteOnly() throws {
        let app = try store.suite("app")
        let other = try store.suite("other")
        try app.batch { b in for i in 0..<10 { try b.set(i, forKey: "k\(i)") } }
        try other.set(1, forKey: "keep")
        #expect(try app.reset() == 10)
        #expect(try app.keys().isEmpty)
        #expect(try app.records().count == 10)
        #expect(try app.records().allSatisfy { $0.record.isTombstone })
        #expect(try other.get("keep", as: Int.self) == 1)
        #expect(try store.suiteNames() == ["app", "other"])
        #expect(try store.integrityReport().isSound)
    }

    @Test func snapshotAndKeys() throws {
        let suite = try store.suite("app")
        try suite.set("a", forKey: "s")
        try suite.set(2, forKey: "i")
        try suite.set(true, forKey: "gone")
        try suite.remove("gone")
        #expect(try suite.keys() == ["i", "s"])
        #expect(try suite.snapshot() == ["s": .string("a"), "i": .int(2)])
    }

    @Test func batchIsOneTransaction() throws {
        let suite = try store.suite("app")
        let before = try store.lastSeq()
        let stamp = store.commitStamp
        try suite.batch { b in
            for i in 0..<100 { try b.set(i, forKey: "k\(i)") }
            try b.remove("k5")
        }
        #expect(store.commitStamp == stamp + 1)
        #expect(try store.lastSeq() == before + 101)
        #expect(try suite.keys().count == 99)
    }

    @Test func updateIsAtomicReadModifyWrite() throws {
        let suite = try store.suite("app")
        let threads = 4
        let each = 200
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<each { _ = try? suite.increment("counter") }
        }
        #expect(try suite.get("counter", as: Int.self) == threads * each)
        try suite.update("list", as: [String].self) { list in list = (list ?? []) + ["a"] }
        try suite.update("list", as: [String].self) { list in list?.append("b") }
        #expect(try suite.get("list", as: [String].self) == ["a", "b"])
        try suite.update("list", as: [String].self) { list in list = nil }
        #expect(try suite.contains("list") == false)
        try suite.set("text", forKey: "notInt")
        expectError(.typeMismatch) { try suite.increment("notInt") }
        #expect(try suite.get("notInt", as: String.self) == "text")
    }

    @Test func journalHoldsOneEntryPerKey() throws {
        let suite = try store.suite("app")
        for i in 0..<50 { try suite.set(i, forKey: "same") }
        try suite.set("other", forKey: "other")
        let entries = try store.journalEntries(after: 0)
        #expect(entries.count == 2)
        #expect(entries.map(\.key) == ["same", "other"])
        #expect(try entries[0].record.value() == .int(49))
        #expect(try store.journalEntries(after: entries[0].seq).map(\.key) == ["other"])
        #expect(try store.integrityReport().isSound)
    }

    @Test func infoCountsWhatIsThere() throws {
        let suite = try store.suite("app")
        try suite.set(1, forKey: "a")
        try suite.set(2, forKey: "b")
        try suite.remove("b")
        let info = try store.info()
        #expect(info.records == 2)
        #expect(info.tombstones == 1)
        #expect(info.journalEntries == 2)
        #expect(info.formatVersion == Store.formatVersion)
        #expect(info.replicaID == store.replicaID)
    }
}
