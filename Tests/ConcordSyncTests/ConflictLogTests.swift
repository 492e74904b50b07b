import Concord
import TestSupport
import Testing

@Suite(.offThePool) struct ConflictLogTests {
    @Test func concurrentWritesAreLoggedWithBothVersionsAndOrigins() throws {
        let tmp = try TemporaryDirectory("conflicts")
        defer { tmp.remove() }
        let clock = ManualClock(.seconds(1_800_000_000))
        let a = try Replicas.open(tmp.path("a"), clock: clock.read)
        let b = try Replicas.open(tmp.path("b"), clock: clock.read)
        try a.suite("prefs").set("dark", forKey: "theme")
        clock.advance(.milliseconds(10))
        try b.suite("prefs").set("light", forKey: "theme") // later: wins
        let report = try Synchronizer().sync(a, b)
        #expect(report.conflicts.count == 1)
        #expect(try a.suite("prefs").get("theme", as: String.self) == "light")

        for store in [a, b] {
            let logged = try store.conflicts()
            try #require(logged.count == 1, "\(store.directory)")
            let c = logged[0]
            #expect(c.suite == "prefs" && c.key == "theme")
            #expect(try c.loser.value() == .string("dark"))
            #expect(try c.winner.value() == .string("light"))
            #expect(c.loser.version.replica == a.replicaID && c.winner.version.replica == b.replicaID)
            #expect(c.detectedMilliseconds == clock.milliseconds)
        }
        let atA = try a.conflicts()[0]
        let atB = try b.conflicts()[0]
        #expect(atA.winnerSide.source == .sync(peer: b.replicaID), "at A the winner arrived from B")
        if case .process = atA.loserSide.source {} else { Issue.record("at A the loser was written by a local process: \(atA.loserSide.source)") }
        #expect(atB.loserSide.source == .sync(peer: a.replicaID), "at B the loser arrived from A")
        #expect(atA.peer == b.replicaID && atB.peer == a.replicaID)
    }

    @Test func aWriteMadeAfterSeeingTheOtherIsNoConflict() throws {
        let tmp = try TemporaryDirectory("conflicts")
        defer { tmp.remove() }
        let a = try Replicas.open(tmp.path("a"))
        let b = try Replicas.open(tmp.path("b"))
        try a.suite("s").set(1, forKey: "k")
        try Synchronizer().sync(a, b)
        try b.suite("s").set(2, forKey: "k") // B saw A's write
        try Synchronizer().sync(a, b)
        try a.suite("s").set(3, forKey: "k") // A saw B's
        try b.suite("s").set(4, forKey: "other")
        try Synchronizer().sync(a, b)
        try b.suite("s").set(5, forKey: "k") // a value B received from A, then overwrote, is not concurrent either
        try Synchronizer().sync(a, b)
        #expect(try a.conflicts().isEmpty && b.conflicts().isEmpty)
        #expect(try a.suite("s").get("k", as: Int.self) == 5)
    }

    @Test func aDeleteRacingAnUpdateIsAConflictToo() throws {
        let tmp = try TemporaryDirectory("conflicts")
        defer { tmp.remove() }
        let clock = ManualClock(.seconds(1_800_000_000))
        let a = try Replicas.open(tmp.path("a"), clock: clock.read)
        let b = try Replicas.open(tmp.path("b"), clock: clock.read)
        try a.suite("s").set("v1", forKey: "k")
        try Synchronizer().sync(a, b)
        clock.advance(.milliseconds(5))
        try b.suite("s").set("v2", forKey: "k")
        clock.advance(.milliseconds(5))
        try a.suite("s").remove("k") // later: the delete wins
        let report = try Synchronizer().sync(a, b)
        #expect(report.conflicts.count == 1)
        let c = try #require(try b.conflicts().first)
        #expect(c.winner.isTombstone)
        #expect(try c.loser.value() == .string("v2"), "the overwritten update is kept, not forgotten")
        #expect(try b.suite("s").contains("k") == false)
    }

    @Test func loggingTheSameLossTwiceKeepsOneEntryAndClearTakesThemAll() throws {
        let tmp = try TemporaryDirectory("conflicts")
        defer { tmp.remove() }
        let clock = ManualClock(.seconds(1_800_000_000))
        let a = try Replicas.open(tmp.path("a"), clock: clock.read)
        let b = try Replicas.open(tmp.path("b"), clock: clock.read)
        try a.suite("one").set(1, forKey: "k")
        try a.suite("two").set(1, forKey: "k")
        clock.advance(.milliseconds(1))
        try b.suite("one").set(2, forKey: "k")
        try b.suite("two").set(2, forKey: "k")
        // The same batch from A, planned twice then applied twice: the second apply skips it (the cursor,
        // bound to A's mark).
        let mark = try a.currentMark(givingTo: b.replicaID, scopes: [.allSuites])
        let delta = try DeltaReader.read(from: a, for: b.replicaID, alreadyMerged: PeerKnowledge(received: try b.peerCursors()), mark: mark)
        let applier = BatchApplier(store: b)
        #expect(try applier.plan(delta.batch).conflicts.count == 2)
        #expect(try applier.apply(delta.batch).conflicts.count == 2)
        #expect(try applier.apply(delta.batch).alreadyMerged == 2)
        #expect(try b.conflicts().count == 2)
        #expect(try b.conflicts(suite: "one").count == 1)

        let cleared = try b.clearConflicts(suite: "one")
        #expect(cleared.map(\.suite) == ["one"])
        #expect(try b.conflicts().map(\.suite) == ["two"])
        #expect(try b.clearConflicts().count == 1)
        #expect(try b.conflicts().isEmpty)
    }
}
