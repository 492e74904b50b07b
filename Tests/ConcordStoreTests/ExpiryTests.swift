import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Concord

/// Values that expire, in one replica: what reads return before and after, the rules of a local
/// write with an expiry, the record's bytes, the index, and observers told at the expiry.
@Suite("Values that expire", .timeLimit(.minutes(2)))
struct ExpiryTests {
    /// A lifetime counts from the write, however long the write waited for its transaction: a clock
    /// that moves a second at every reading makes the wait a second long, far past the lifetime.
    @Test func aLifetimeCountsFromTheWriteNotFromTheCall() throws {
        let readings = Mutex<UInt64>(1_800_000_000_000)
        var options = Store.Options()
        options.wallClock = {
            readings.withLock { now in
                defer { now += 1_000 }
                return .milliseconds(now)
            }
        }
        let store = try Store.temporary(options: options)
        let suite = try store.suite("app")
        try suite.set("token", forKey: "session", expiresAfter: .milliseconds(20))
        let record = try #require(try suite.record(forKey: "session"))
        let written = record.version.milliseconds
        #expect(record.expires == Date(timeIntervalSince1970: Double(written + 20) / 1000), "20 ms after the write's own time")
    }

    @Test func aValueReadsAsAbsentFromItsExpiryOn() throws {
        let clock = ManualClock()
        let store = try Store.temporary(clock: clock)
        let suite = try store.suite("app")
        try suite.register(defaults: ["session": "none"])
        let version = try #require(try suite.set("token", forKey: "session", expiresAfter: .seconds(60)))
        try suite.set("dark", forKey: "theme")
        let record = try #require(try suite.record(forKey: "session"))
        #expect(record.expires == Date(timeIntervalSince1970: Double(clock.milliseconds + 60_000) / 1000))
        #expect(record.version == version && !record.isTombstone)
        #expect(try suite.get("session", as: String.self) == "token")
        #expect(try suite.contains("session"))
        #expect(try suite.keys() == ["session", "theme"])

        clock.advance(.milliseconds(59_999))
        #expect(try suite.get("session", as: String.self) == "token", "a millisecond before its expiry it still reads")
        clock.advance(.milliseconds(1))
        #expect(try suite.get("session", as: String.self) == "none", "at its expiry the registered default answers")
        #expect(try suite.storedValue(forKey: "session") == nil)
        #expect(try !suite.contains("session"))
        #expect(try suite.keys() == ["theme"])
        #expect(try suite.snapshot() == ["theme": .string("dark")])
        // The record stays, holding its value, until tombstone collection: it still merges by its version.
        #expect(try suite.record(forKey: "session")?.value() == .string("token"))
        // Removing a key whose value expired writes nothing (it holds none); a new write replaces it.
        #expect(try suite.remove("session") == nil)
        try suite.set("fresh", forKey: "session")
        #expect(try suite.get("session", as: String.self) == "fresh")
        #expect(try suite.record(forKey: "session")?.expires == nil)
    }

    @Test func expiringAtADateIsKeptToTheMillisecondRoundedUp() throws {
        let clock = ManualClock(.seconds(1_800_000_000))
        let store = try Store.temporary(clock: clock)
        let suite = try store.suite("app")
        try suite.set(1, forKey: "n", expiresAt: Date(timeIntervalSince1970: 1_800_000_010.0004))
        #expect(try suite.record(forKey: "n")?.expiresAtMilliseconds == 1_800_000_010_001)
        clock.set(.milliseconds(1_800_000_010_000))
        #expect(try suite.get("n", as: Int.self) == 1)
        clock.set(.milliseconds(1_800_000_010_001))
        #expect(try suite.get("n", as: Int.self) == nil)
    }

    @Test func badExpiriesAndPolicyKeysAreRefusedAndWriteNothing() throws {
        let clock = ManualClock()
        let store = try Store.temporary(clock: clock)
        let suite = try store.suite("app")
        let now = Date(timeIntervalSince1970: Double(clock.milliseconds) / 1000)
        let before = try store.lastSeq()
        expectError(.unsupportedValue) { try suite.set("x", forKey: "k", expiresAt: now) }
        expectError(.unsupportedValue) { try suite.set("x", forKey: "k", expiresAt: now.addingTimeInterval(-1)) }
        expectError(.unsupportedValue) { try suite.set("x", forKey: "k", expiresAfter: .zero) }
        expectError(.unsupportedValue) { try suite.set("x", forKey: "k", expiresAfter: .seconds(-5)) }
        expectError(.unsupportedValue) { try suite.set("x", forKey: "k", expiresAt: Date(timeIntervalSince1970: 300_000_000_000)) }
        expectError(.unsupportedValue) { try suite.set(String?.none, forKey: "k", expiresAfter: .seconds(1)) }
        do {
            try suite.set("x", forKey: "k", expiresAt: now)
        } catch let error as ConcordError {
            #expect("\(error)".contains("is not after now"), "\(error)")
        }
        try suite.declare(.counter, forKey: "launches")
        try suite.declare(.set, forKeysWithPrefix: "tags.")
        for key in ["launches", "tags.a"] {
            do {
                try suite.set(1, forKey: key, expiresAfter: .seconds(60))
                Issue.record("an expiring value on \(key) was written")
            } catch let error as ConcordError where error.code == .policyMismatch {
                #expect(error.key == key && error.message.contains("only a last-writer-wins key"))
            }
        }
        #expect(try store.lastSeq() == before + 2, "only the two declarations were written")
    }

    @Test func anExpiredValueIsNothingToIncrementOrUpdate() throws {
        let clock = ManualClock()
        let store = try Store.temporary(clock: clock)
        let suite = try store.suite("app")
        try suite.set(41, forKey: "n", expiresAfter: .seconds(1))
        try suite.set(["a"], forKey: "list", expiresAfter: .seconds(1))
        clock.advance(.milliseconds(1_000))
        #expect(try suite.increment("n") == 1)
        let seen = try suite.update("list", as: [String].self) { list -> [String]? in
            let was = list
            list = (list ?? []) + ["b"]
            return was
        }
        #expect(seen == nil, "update sees no value")
        #expect(try suite.get("list", as: [String].self) == ["b"])
        // A counter declared over an expiring value carries it as its base, with the expiry: once the
        // base expires, the counter reads as the increments made since.
        try suite.set(10, forKey: "c", expiresAfter: .seconds(5))
        try suite.declare(.counter, forKey: "c")
        #expect(try suite.increment("c", by: 2) == 12)
        #expect(try suite.record(forKey: "c")?.expires != nil)
        clock.advance(.milliseconds(5_000))
        #expect(try suite.get("c", as: Int.self) == 2)
    }

    @Test func theRecordCarriesItsExpiryInItsBytesAndTheIndexFollowsIt() throws {
        let clock = ManualClock()
        let store = try Store.temporary(clock: clock)
        let suite = try store.suite("app")
        try suite.set("v", forKey: "a", expiresAfter: .seconds(10))
        let record = try #require(try suite.record(forKey: "a"))
        #expect(record.encoded[0] == 3, "flags 3: a value that expires")
        #expect(try Record.decode(record.encoded) == record)
        #expect(try Record.decode(Record(version: record.version, valueBytes: record.valueBytes).encoded).expires == nil)
        func index() throws -> [UInt64] {
            try store.read { r in try r.expiries(after: 0, upTo: .max).expired.map { $0.record.expiresAtMilliseconds! } }
        }
        #expect(try index() == [clock.milliseconds + 10_000])
        try suite.set("v", forKey: "a", expiresAfter: .seconds(20)) // a new expiry replaces the old one
        #expect(try index() == [clock.milliseconds + 20_000])
        try suite.set("w", forKey: "b", expiresAfter: .seconds(5))
        #expect(try index() == [clock.milliseconds + 5_000, clock.milliseconds + 20_000])
        try suite.set("plain", forKey: "a") // a value that does not expire leaves the index
        try suite.remove("b")
        #expect(try index() == [])
        let found = try store.read { r in try r.expiries(after: 0, upTo: clock.milliseconds) }
        #expect(found.expired.isEmpty && found.next == nil)

        // check() holds the index to the records: an entry lost, or one left behind, is a problem.
        try suite.set("v", forKey: "c", expiresAfter: .seconds(30))
        #expect(try store.integrityReport().isSound)
        let entry = StoreLayout.expiryKey(clock.milliseconds + 30_000, recordKey: StoreLayout.recordKey(suite: "app", key: "c"))
        try store.write { w in _ = try w.txn.delete(w.layout.expiries, entry) }
        #expect(try store.integrityReport().problems == ["record app/c expires but the expiry index does not hold it"])
        try store.write { w in try w.txn.put(w.layout.expiries, StoreLayout.expiryKey(5, recordKey: StoreLayout.recordKey(suite: "app", key: "a")), []) }
        #expect(try store.integrityReport().problems.contains("the expiry index names app/a, whose record does not expire then"))
    }

    @Test func observersAreToldAtTheExpiryWithoutAWrite() async throws {
        let clock = ManualClock()
        let store = try Store.temporary(clock: clock)
        let suite = try store.suite("app")
        try suite.register(defaults: ["snooze": false])
        try await suite.set(true, forKey: "snooze", expiresAfter: .seconds(900))
        try await suite.set(1, forKey: "later", expiresAfter: .seconds(1800))
        let seen = Collector<Change>()
        let token = try suite.changes().start { seen.append($0) }
        var values = suite.values(of: "snooze", as: Bool.self).makeAsyncIterator()
        #expect(try await values.next() == true)
        clock.advance(.milliseconds(900_000))
        #expect(await seen.arrival(of: 1))
        let change = try #require(seen.values.first)
        #expect(change.key == "snooze" && change.origin == .expired && change.value == nil && change.effectiveValue == .bool(false))
        #expect(try await values.next() == false, "the value stream reads the default once the value expired")
        clock.advance(.milliseconds(900_000))
        #expect(await seen.arrival(of: 2))
        #expect(seen.values.map(\.key) == ["snooze", "later"])
        withExtendedLifetime(token) {}
    }

    @Test func theStoresTimerTellsObserversOnTheWallClock() throws {
        let store = try Store.temporary()
        let suite = try store.suite("app")
        let seen = Collector<Change>()
        let token = try suite.changes(for: "token").start { seen.append($0) }
        try suite.set("abc", forKey: "token", expiresAfter: .milliseconds(300))
        #expect(seen.wait(for: 1))
        // Nothing is written after this: the second change is the expiry, told by the store's timer.
        #expect(seen.wait(for: 2, timeout: 30))
        #expect(seen.values.map(\.origin) == [.thisProcess, .expired])
        #expect(try suite.get("token", as: String.self) == nil)
        withExtendedLifetime(token) {}
    }

    @Test(.offThePool) func anotherProcessObservingIsToldAtTheExpiry() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        let store = try Store(path: dir)
        let watcher = try ChildProcess("concord-test-helper", ["watch", dir, "2"])
        #expect(watcher.waitForLine { $0 == "ready" }, "\(watcher.errorOutput)")
        try store.suite("app").set("abc", forKey: "token", expiresAfter: .milliseconds(500))
        let result = watcher.wait(timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        // The watcher is told of the write, then — nobody writing — of the expiry, by its own timer.
        #expect(
            result.lines.filter { $0 != "ready" }.map { $0.split(separator: " ").dropFirst().joined(separator: " ") } == [
                "app token other-process", "app token expired"
            ])
    }
}
