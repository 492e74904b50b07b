import Concord
import Foundation
import TestSupport
import Testing

/// What each policy means for a user, operation by operation, across two replicas.
@Suite(.offThePool) struct PolicySemanticsTests {
    struct Pair {
        let tmp: TemporaryDirectory
        let phone: Store, watch: Store
        let clock = ManualClock()
        init() throws {
            tmp = try TemporaryDirectory("semantics")
            phone = try Replicas.open(tmp.path("phone"), clock: clock.read)
            watch = try Replicas.open(tmp.path("watch"), clock: clock.read)
        }
        func sync() throws -> SyncReport { try Synchronizer().sync(phone, watch) }
        func both<T: StorableValue & Equatable>(_ key: String, as: T.Type, suite: String = "app") throws -> [T?] {
            [try phone.suite(suite).get(key, as: T.self), try watch.suite(suite).get(key, as: T.self)]
        }
    }

    /// The example: launchCount is 0 on both; each increments once; after a sync both read 2.
    @Test func concurrentIncrementsOnTwoReplicasAddUpAndAreNotConflicts() throws {
        let pair = try Pair()
        defer { pair.tmp.remove() }
        try pair.phone.suite("app").declare(.counter, forKey: "launchCount")
        try pair.phone.suite("app").set(0, forKey: "launchCount")
        try pair.sync()
        #expect(try pair.watch.suite("app").policy(forKey: "launchCount") == .counter, "the declaration synced")
        #expect(try pair.phone.suite("app").increment("launchCount") == 1)
        #expect(try pair.watch.suite("app").increment("launchCount") == 1)
        let report = try pair.sync()
        #expect(report.conflicts.isEmpty, "concurrent increments combine")
        #expect(try pair.both("launchCount", as: Int.self) == [2, 2])
        #expect(try pair.sync().isInSync, "repeated syncs count each increment once")
        #expect(try pair.sync().isInSync)
        #expect(try pair.both("launchCount", as: Int.self) == [2, 2])
        #expect(try pair.phone.conflicts().isEmpty)
        #expect(try pair.watch.conflicts().isEmpty)
    }

    @Test func concurrentSetsOnACounterAreAConflictAndTakeBackOnlyWhatTheirWriterSaw() throws {
        let pair = try Pair()
        defer { pair.tmp.remove() }
        try pair.phone.suite("app").declare(.counter, forKey: "n")
        try pair.phone.suite("app").increment("n", by: 5)
        try pair.sync()
        try pair.watch.suite("app").increment("n", by: 1) // the phone has not seen this one
        pair.clock.advance(.milliseconds(1))
        try pair.phone.suite("app").set(10, forKey: "n") // takes back the 5 it saw
        pair.clock.advance(.milliseconds(1))
        try pair.watch.suite("app").set(20, forKey: "n") // concurrent with the phone's set; it saw 5 and its own 1
        let report = try pair.sync()
        #expect(try pair.both("n", as: Int.self) == [20, 20], "the later set wins; every increment was seen by one of them")
        let conflict = try #require(report.conflicts.first)
        #expect(report.conflicts.count == 1 && conflict.key == "n")
        #expect(try conflict.loser.value() == .int(10), "the losing set is kept")
        #expect(try conflict.winner.value() == .int(20))
        #expect(conflict.loser.version < conflict.winner.version)
        // A set made after seeing the other is an overwrite the writer saw: no conflict.
        try pair.phone.suite("app").set(3, forKey: "n")
        try pair.watch.suite("app").increment("n") // concurrent increment: survives the set
        let after = try pair.sync()
        #expect(after.conflicts.isEmpty)
        #expect(try pair.both("n", as: Int.self) == [4, 4], "a set takes back only the increments its writer had seen")
    }

    @Test func aKeyWithLWWHistoryKeepsItsValueWhenItBecomesACounter() throws {
        let pair = try Pair()
        defer { pair.tmp.remove() }
        try pair.phone.suite("app").set(3, forKey: "launchCount")
        try pair.sync()
        try pair.watch.suite("app").declare(.counter, forKey: "launchCount")
        try pair.sync()
        #expect(try pair.phone.suite("app").increment("launchCount") == 4, "the lww value is the counter's starting value")
        #expect(try pair.watch.suite("app").increment("launchCount") == 4)
        try pair.sync()
        #expect(try pair.both("launchCount", as: Int.self) == [5, 5])
        // Back to lww: a set replaces the counter's value for everyone, and increments are lww again.
        try pair.phone.suite("app").declare(.lww, forKey: "launchCount")
        try pair.sync()
        try pair.watch.suite("app").set(100, forKey: "launchCount")
        try pair.sync()
        #expect(try pair.both("launchCount", as: Int.self) == [100, 100])
        #expect(try pair.phone.suite("app").increment("launchCount") == 101)
        try pair.sync()
        #expect(try pair.both("launchCount", as: Int.self) == [101, 101])
        #expect(try pair.phone.suite("app").record(forKey: "launchCount")?.policy == .lww)
    }

    @Test func aValueIsCarriedOverWhenThePolicyChanges() throws {
        let pair = try Pair()
        defer { pair.tmp.remove() }
        let app = try pair.phone.suite("app")
        try app.declare(.counter, forKey: "score")
        try app.increment("score", by: 7)
        try app.declare(.max, forKey: "score")
        #expect(try app.get("score", as: Int.self) == 7, "reads do not change with the declaration")
        try app.set(5, forKey: "score") // the first write under the new policy carries the value over
        #expect(try app.get("score", as: Int.self) == 7, "the counter's value became the max's; a max key does not go down")
        #expect(try app.set(6, forKey: "score") == nil, "a proposal below the value writes nothing")
        try app.set(9, forKey: "score")
        #expect(try app.get("score", as: Int.self) == 9)
        try app.declare(.set, forKey: "tags")
        try app.set(["x"], forKey: "tags")
        try app.declare(.lww, forKey: "tags")
        try app.update("tags", as: [String].self) { $0?.append("y") }
        #expect(try app.get("tags", as: [String].self) == ["x", "y"])
    }

    @Test func concurrentDifferentDeclarationsSettleOnTheLaterOneEverywhere() throws {
        let pair = try Pair()
        defer { pair.tmp.remove() }
        try pair.phone.suite("app").declare(.max, forKey: "k")
        pair.clock.advance(.milliseconds(5))
        try pair.watch.suite("app").declare(.min, forKey: "k")
        try pair.sync()
        #expect(try pair.phone.suite("app").policy(forKey: "k") == .min)
        #expect(try pair.watch.suite("app").policy(forKey: "k") == .min)
        let declarations = try pair.phone.suite("app").policyDeclarations()
        #expect(declarations.map(\.policy) == [.min] && declarations.first?.version.replica == pair.watch.replicaID)
        try pair.phone.suite("app").declare(.set, forKeysWithPrefix: "tags.")
        let declared = try pair.phone.suite("app").declaredPolicies()
        #expect(declared.keys == ["k": .min] && declared.prefixes == ["tags.": .set], "\(declared)")
        #expect(try pair.phone.suite("other").declaredPolicies().keys.isEmpty, "another suite's declarations are its own")
    }

    @Test func prefixDeclarationsApplyToTheKeysThatStartWithThem() throws {
        let pair = try Pair()
        defer { pair.tmp.remove() }
        let app = try pair.phone.suite("app")
        try app.declare(.max, forKeysWithPrefix: "score.")
        try app.declare(.min, forKeysWithPrefix: "score.best.")
        try app.declare(.counter, forKey: "score.best.count")
        #expect(try app.policy(forKey: "score.level1") == .max)
        #expect(try app.policy(forKey: "score.best.time") == .min, "the longest prefix decides")
        #expect(try app.policy(forKey: "score.best.count") == .counter, "a key's own declaration comes first")
        #expect(try app.policy(forKey: "other") == .lww)
        try app.set(3, forKey: "score.level1")
        try app.set(1, forKey: "score.level1")
        #expect(try app.get("score.level1", as: Int.self) == 3)
        try app.declare(nil, forKeysWithPrefix: "score.")
        #expect(try app.policy(forKey: "score.level2") == .lww, "removing a declaration")
        #expect(try app.policy(forKey: "score.level1") == .max, "a stored policy record still says how it merges")
    }

    @Test func operationsAPolicyDoesNotTakeAreRefusedClearlyAndChangeNothing() throws {
        let pair = try Pair()
        defer { pair.tmp.remove() }
        let app = try pair.phone.suite("app")
        try app.declare(.set, forKey: "tags")
        try app.declare(.max, forKey: "best")
        try app.declare(.counter, forKey: "n")
        try app.set(["a"], forKey: "tags")
        try app.set(2, forKey: "best")
        let stamp = pair.phone.commitStamp
        expectError(.policyMismatch) { try app.increment("tags") }
        expectError(.policyMismatch) { try app.set("a", forKey: "tags") }
        expectError(.policyMismatch) { try app.set(Value.array([.array([])]), forKey: "tags") }
        expectError(.policyMismatch) { try app.set(true, forKey: "best") }
        expectError(.policyMismatch) { try app.set(2.5, forKey: "best") }
        expectError(.policyMismatch) { try app.set("ten", forKey: "n") }
        expectError(.reservedSuite) { try pair.phone.suite("_concord").set("counter", forKey: "policy:app:x") }
        expectError(.reservedSuite) { try pair.phone.suite("_concord").declare(.counter, forKey: "x") }
        expectError(.reservedSuite) { try pair.phone.suite("_concord").reset() }
        #expect(pair.phone.commitStamp == stamp, "nothing was written")
        do { try app.increment("tags") } catch { #expect("\(error)".contains("add-wins set cannot be incremented")) }
        #expect(try app.get("tags", as: [String].self) == ["a"])
        #expect(try app.get("best", as: Int.self) == 2)
    }

    @Test func setsMergeConcurrentAdditionsAndRemoveOnlyWhatTheRemoverSaw() throws {
        let pair = try Pair()
        defer { pair.tmp.remove() }
        try pair.phone.suite("app").declare(.set, forKey: "recent")
        try pair.phone.suite("app").set(["a", "b"], forKey: "recent")
        try pair.sync()
        try pair.phone.suite("app").update("recent", as: [String].self) { $0?.append("c") }
        try pair.watch.suite("app").update("recent", as: [String].self) { $0?.append("d") }
        try pair.watch.suite("app").update("recent", as: [String].self) { $0?.removeAll { $0 == "a" } }
        try pair.phone.suite("app").update("recent", as: [String].self) { $0?.append("a") } // already there: nothing new
        let report = try pair.sync()
        #expect(report.conflicts.isEmpty)
        #expect(
            try pair.both("recent", as: [String].self) == [["b", "c", "d"], ["b", "c", "d"]], "additions from both survive; the removal took the 'a' it saw")
        try pair.watch.suite("app").remove("recent")
        try pair.phone.suite("app").update("recent", as: [String].self) { $0?.append("e") } // not seen by the removal
        try pair.sync()
        #expect(try pair.both("recent", as: [String].self) == [["e"], ["e"]], "add wins over a concurrent removal")
    }

    @Test func aDryRunSeesPolicyMergesAndWritesNothing() throws {
        let pair = try Pair()
        defer { pair.tmp.remove() }
        try pair.phone.suite("app").declare(.counter, forKey: "n")
        try pair.sync()
        try pair.phone.suite("app").increment("n")
        try pair.watch.suite("app").increment("n")
        let before = (try Replicas.bytes(pair.phone), try Replicas.bytes(pair.watch))
        let plan = try Synchronizer().sync(pair.phone, pair.watch, dryRun: true)
        #expect(!plan.isInSync && plan.recordsChanged == 2 && plan.conflicts.isEmpty)
        #expect((try Replicas.bytes(pair.phone), try Replicas.bytes(pair.watch)) == before)
        try pair.sync()
        #expect(try Synchronizer().sync(pair.phone, pair.watch, dryRun: true).isInSync)
    }

    @Test func theJournalAndObserversSeeWhatAMergedCounterReadsAs() throws {
        let pair = try Pair()
        defer { pair.tmp.remove() }
        try pair.phone.suite("app").declare(.counter, forKey: "n")
        try pair.sync()
        let seen = Collector<Change>()
        let token = try pair.phone.suite("app").changes(for: "n").start { seen.append($0) }
        defer { token.cancel() }
        try pair.phone.suite("app").increment("n", by: 2)
        #expect(seen.wait(for: 1), "a rewrite supersedes the key's earlier entry: wait for this change before the next")
        try pair.watch.suite("app").increment("n", by: 3)
        try pair.sync()
        #expect(seen.wait(for: 2))
        #expect(seen.values.map(\.value) == [.int(2), .int(5)])
        #expect(seen.values.last?.origin == .sync(peer: pair.watch.replicaID))
        let entry = try #require(try pair.phone.journalEntries(after: 0, suite: "app").last)
        #expect(entry.key == "n" && entry.record.policy == .counter)
        #expect(try entry.record.value() == .int(5))
    }

    @Test func aSuiteLimitedSyncCarriesDeclarationsOnlyWithTheReservedSuite() throws {
        let pair = try Pair()
        defer { pair.tmp.remove() }
        try pair.phone.suite("app").declare(.counter, forKey: "n")
        try pair.phone.suite("app").declare(.counter, forKey: "m")
        try pair.phone.suite("app").increment("n")
        try Synchronizer(selection: try SyncSelection(suites: ["app"])).sync(pair.phone, pair.watch)
        #expect(try pair.watch.suite("app").policy(forKey: "n") == .counter, "the record says how it merges")
        #expect(try pair.watch.suite("app").policy(forKey: "m") == .lww, "no record, no declaration here yet")
        #expect(try pair.watch.suite("app").increment("n") == 2, "a write follows the policy its record reads by")
        try Synchronizer(selection: try SyncSelection(suites: ["app", "_concord"])).sync(pair.phone, pair.watch)
        #expect(try pair.watch.suite("app").policy(forKey: "m") == .counter)
        #expect(try pair.both("n", as: Int.self) == [2, 2])
    }
}
