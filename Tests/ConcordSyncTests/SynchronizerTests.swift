import Concord
import Foundation
import TestSupport
import Testing

@Suite(.offThePool) struct SynchronizerTests {
    @Test func syncLeavesBothReplicasWithTheSameRecords() throws {
        let tmp = try TemporaryDirectory("sync")
        defer { tmp.remove() }
        let a = try Replicas.open(tmp.path("a"))
        let b = try Replicas.open(tmp.path("b"))
        try a.suite("prefs").set("dark", forKey: "theme")
        try a.suite("prefs").set(12, forKey: "font")
        try b.suite("prefs").set(true, forKey: "sounds")
        try b.suite("other").set("x", forKey: "y")
        try b.suite("prefs").set(1, forKey: "gone")
        try b.suite("prefs").remove("gone")

        let report = try Synchronizer().sync(a, b)
        #expect(report.aToB.recordsChanged == 2)
        #expect(report.bToA.recordsChanged == 3, "sounds, other/y and the tombstone of gone")
        #expect(report.conflicts.isEmpty)
        #expect(try Replicas.bytes(a) == Replicas.bytes(b))
        #expect(try a.suite("prefs").get("sounds", as: Bool.self) == true)
        #expect(try b.suite("prefs").get("theme", as: String.self) == "dark")
        #expect(try a.suite("prefs").record(forKey: "gone")?.isTombstone == true, "the delete travelled as a tombstone")
        try Replicas.expectSound(a)
        try Replicas.expectSound(b)

        let again = try Synchronizer().sync(a, b)
        #expect(again.isInSync && again.recordsChanged == 0)
        #expect(again.aToB.entries == 0, "B sent A's own changes back? \(again.aToB)")
    }

    @Test func mergedChangesAreRejournaledAsSyncSoTheyTravelOn() throws {
        let tmp = try TemporaryDirectory("sync")
        defer { tmp.remove() }
        let a = try Replicas.open(tmp.path("a"))
        let b = try Replicas.open(tmp.path("b"))
        let c = try Replicas.open(tmp.path("c"))
        try a.suite("s").set("from-a", forKey: "k")
        try Synchronizer().sync(a, b)
        let entry = try #require(try b.journalEntries(after: 0).first { $0.key == "k" })
        #expect(entry.source == .sync(peer: a.replicaID))
        #expect(entry.record.version.replica == a.replicaID, "the version is the writer's, unchanged")
        try Synchronizer().sync(b, c)
        #expect(try c.suite("s").get("k", as: String.self) == "from-a", "A -> B -> C")
        #expect(try c.suite("s").record(forKey: "k") == a.suite("s").record(forKey: "k"))
    }

    @Test func observersSeeMergedChangesWithTheirPeerAsOrigin() throws {
        let tmp = try TemporaryDirectory("sync")
        defer { tmp.remove() }
        let a = try Replicas.open(tmp.path("a"))
        let b = try Replicas.open(tmp.path("b"))
        let seen = Collector<Change>()
        let token = try b.suite("s").changes().start { seen.append($0) }
        defer { token.cancel() }
        try a.suite("s").set(1, forKey: "one")
        try a.suite("s").set(2, forKey: "two")
        try Synchronizer().sync(a, b)
        #expect(seen.wait(for: 2))
        #expect(Set(seen.values.map(\.key)) == ["one", "two"])
        #expect(seen.values.allSatisfy { $0.origin == .sync(peer: a.replicaID) })
    }

    @Test func anotherProcessWatchingTheReplicaIsWokenWithOriginSync() throws {
        let tmp = try TemporaryDirectory("sync")
        defer { tmp.remove() }
        let a = try Replicas.open(tmp.path("a"))
        let b = try Replicas.open(tmp.path("b"))
        try b.suite("s").set(0, forKey: "init")
        let watcher = try ChildProcess("concord-test-helper", ["watch", tmp.path("b"), "1"])
        #expect(watcher.waitForLine { $0 == "ready" })
        try a.suite("s").set(1, forKey: "k")
        try Synchronizer().sync(a, b)
        let result = watcher.wait(timeout: 30)
        #expect(result.status == 0)
        #expect(result.lines.contains { $0.hasSuffix("s k sync:\(a.replicaID)") }, "\(result.lines)")
    }

    @Test func theCursorMovesSoTheNextSyncSendsOnlyNewChanges() throws {
        let tmp = try TemporaryDirectory("sync")
        defer { tmp.remove() }
        let a = try Replicas.open(tmp.path("a"))
        let b = try Replicas.open(tmp.path("b"))
        for i in 0..<50 { try a.suite("s").set(i, forKey: "k\(i)") }
        let first = try Synchronizer().sync(a, b)
        #expect(first.aToB.entries == 50)
        let cursor = try #require(try b.peerCursors().cursor(peer: a.replicaID, scope: .allSuites))
        #expect(cursor.received == (try a.lastSeq()))
        #expect(
            try a.peerCursors().cursor(peer: b.replicaID, scope: .allSuites)?.acknowledged == (try a.lastSeq()),
            "A learns how far B merged it")
        try a.suite("s").set(99, forKey: "k7")
        try a.suite("s").set(1, forKey: "new")
        let second = try Synchronizer().sync(a, b)
        #expect(second.aToB.entries == 2)
        #expect(second.journalEntriesRead == 2, "A's 2 new entries; B's re-journaled copies of A's changes are skipped by the cursor")
        #expect(second.bToA.entries == 0)
        try b.suite("s").set(1, forKey: "from-b")
        let third = try Synchronizer().sync(a, b)
        #expect(third.journalEntriesRead == 1 && third.bToA.entries == 1)
        // A's copy of B's change is read once by the next sync (B's cursor on A was set before A merged it), never sent back.
        let fourth = try Synchronizer().sync(a, b)
        #expect(fourth.journalEntriesRead == 1 && fourth.aToB.entries == 0)
        #expect(try Synchronizer().sync(a, b).journalEntriesRead == 0)
    }

    @Test func aSyncOfSomeSuitesLeavesTheOthersAndKeepsItsOwnCursors() throws {
        let tmp = try TemporaryDirectory("sync")
        defer { tmp.remove() }
        let a = try Replicas.open(tmp.path("a"))
        let b = try Replicas.open(tmp.path("b"))
        try a.suite("one").set(1, forKey: "k")
        try a.suite("two").set(2, forKey: "k")
        let only = try Synchronizer(selection: SyncSelection(suites: ["one"])).sync(a, b)
        #expect(only.aToB.recordsChanged == 1)
        #expect(try b.suite("two").record(forKey: "k") == nil)
        #expect(try b.peerCursors().cursor(peer: a.replicaID, scope: .suite("one")) != nil)
        #expect(try b.peerCursors().cursor(peer: a.replicaID, scope: .allSuites) == nil)
        let rest = try Synchronizer().sync(a, b)
        #expect(rest.aToB.recordsChanged == 1, "suite two still arrives")
        #expect(rest.aToB.entries == 1, "suite one's entry is left out by its own cursor")
        #expect(try Replicas.bytes(a) == Replicas.bytes(b))
    }

    @Test func aReplicaIsNeverSyncedWithItself() throws {
        let tmp = try TemporaryDirectory("sync")
        defer { tmp.remove() }
        let a = try Replicas.open(tmp.path("a"))
        expectError(.sameReplica) { try Synchronizer().sync(a, a) }
    }

    @Test func aBatchIsMergedWholeOrNotAtAll() throws {
        let tmp = try TemporaryDirectory("sync")
        defer { tmp.remove() }
        let a = try Replicas.open(tmp.path("a"))
        let b = try Replicas.open(tmp.path("b"))
        for i in 0..<20 { try a.suite("s").set(i, forKey: "k\(i)") }
        try b.suite("s").set("mine", forKey: "b")
        let before = try Replicas.bytes(b)
        let seqBefore = try b.lastSeq()
        let cursorsBefore = try b.peerCursors()
        // Another process pulls with its commit failing (ENOSPC): fault injection is per process.
        let failed = try run("concord-test-helper", ["pull-failing-commit", tmp.path("a"), tmp.path("b")])
        #expect(failed.lines == ["refused"], "\(failed.stdout) \(failed.stderr)")
        #expect(try Replicas.bytes(b) == before)
        #expect(try b.lastSeq() == seqBefore)
        #expect(try b.peerCursors() == cursorsBefore, "the cursor moves only with the records")
        try Synchronizer().pull(from: a, into: b)
        #expect(try b.suite("s").keys().count == 21)
    }

    @Test func aDryRunWritesNothingAndPredictsTheRealRun() throws {
        let tmp = try TemporaryDirectory("sync")
        defer { tmp.remove() }
        let a = try Replicas.open(tmp.path("a"))
        let b = try Replicas.open(tmp.path("b"))
        try a.suite("s").set(1, forKey: "x")
        try b.suite("s").set(2, forKey: "x")
        try b.suite("s").set(3, forKey: "y")
        let stampA = a.commitStamp
        let stampB = b.commitStamp
        let plan = try Synchronizer().sync(a, b, dryRun: true)
        #expect(a.commitStamp == stampA && b.commitStamp == stampB, "no transaction was committed")
        #expect(!plan.isInSync)
        let real = try Synchronizer().sync(a, b)
        #expect(plan.aToB.recordsChanged == real.aToB.recordsChanged && plan.bToA.recordsChanged == real.bToA.recordsChanged)
        #expect(plan.conflicts.count == real.conflicts.count)
        #expect(try Synchronizer().sync(a, b, dryRun: true).isInSync)
    }
}
